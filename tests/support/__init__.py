"""Helpers for the integration tests: building test programs, waiting for events, process checks."""
