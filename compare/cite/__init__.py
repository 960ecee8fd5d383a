"""Pipeline stage `cite` (pin → models → diff → exchange → rows → cite → site)."""
