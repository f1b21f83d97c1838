"""Hostile-input tests (hypothesis) and a standalone fuzz runner: `python -m tests.fuzz`."""
