"""Tests of ``compare/peer/``."""
