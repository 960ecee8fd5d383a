"""Stage `pin` of the pipeline (see README: pin → models → diff → exchange → rows → cite → site)."""
