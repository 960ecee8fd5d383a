"""Pipeline stage `models` (pin → models → diff → exchange → rows → cite → site)."""
