"""Transports move framed messages (bytes) between a client and the server; no protocol here."""
