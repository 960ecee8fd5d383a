"""Pipeline stage `site` (pin → models → diff → exchange → rows → cite → site)."""
