"""Example programs bundled for the quickstart demo."""
