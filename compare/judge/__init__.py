"""Judging transcripts: the rules (``rules/``), the verdict and its one reader,
the grounds and named sentences a grade rests on.

Reads only what ``compare.play`` recorded and ``compare.exchange`` declares. Import
modules directly (``compare.judge._judge``): this package re-exports nothing.
"""
