"""Tests of ``compare/play/``."""
