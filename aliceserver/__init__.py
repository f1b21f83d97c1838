"""aliceserver: a debugger server (DAP, GDB/MI, MCP) over its own Linux ptrace engine."""

__version__ = "0.1.0"
