"""The command-line front end: `aliceserver cli ...` / `aliceserver-cli`.

A per-user daemon (`daemon.py`) holds the debug sessions between commands and hosts the
agent tools; each command (`main.py`, `commands.py`) connects to it over a Unix socket
(`client.py`, `wire.py`), runs one tool and prints the reply, rendered by the daemon
(`format.py`). The client side imports nothing heavy, so a command starts fast.
"""
