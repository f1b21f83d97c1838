"""Debugger backends and the contract between them and the adapters."""
