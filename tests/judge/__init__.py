"""Tests of ``compare/judge/``."""
