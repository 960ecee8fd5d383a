"""Installs the real clients named by the target files into the project-local tools folder."""
