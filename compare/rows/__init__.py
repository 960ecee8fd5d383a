"""Pipeline stage `rows` (pin → models → diff → exchange → rows → cite → site)."""
