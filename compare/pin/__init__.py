"""Pipeline stage `pin` (pin → models → diff → exchange → rows → cite → site)."""
