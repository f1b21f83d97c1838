"""Running the MCP front end from the command line (`aliceserver --adapter mcp`)."""

from __future__ import annotations

import argparse

from aliceserver.serve import configure_logging, ptrace_debugger


def serve_mcp(options: argparse.Namespace) -> int:
    # Imported here: the MCP SDK (and its web stack) loads only for --adapter mcp.
    from aliceserver.adapters.mcp.server import serve_stdio

    configure_logging(options.log_file, options.log_level)
    return serve_stdio(ptrace_debugger)
