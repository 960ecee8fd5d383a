"""Pipeline stage `diff` (pin → models → diff → exchange → rows → cite → site)."""
