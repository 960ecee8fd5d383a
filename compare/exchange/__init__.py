"""Pipeline stage `exchange` (pin → models → diff → exchange → rows → cite → site)."""
