"""Running the MCP front end from the command line (`aliceserver --adapter mcp`)."""

from __future__ import annotations

import argparse
import sys

from aliceserver.engines import debugger_factory
from aliceserver.serve import configure_logging

# The MCP SDK and the modules it brings: a ModuleNotFoundError naming one of these means
# the `mcp` extra is not installed (or only in part), not a bug of ours.
_SDK_MODULES = ("mcp", "mcp_types", "anyio", "pydantic", "pydantic_core", "httpx", "starlette")


def serve_mcp(options: argparse.Namespace) -> int:
    # Imported here: the MCP SDK (and its web stack) loads only for --adapter mcp.
    try:
        from aliceserver.adapters.mcp.server import serve_stdio
    except ModuleNotFoundError as error:
        root = (error.name or "").partition(".")[0]
        if root not in _SDK_MODULES:
            raise
        print(
            f"aliceserver: --adapter mcp needs the MCP SDK (missing module {error.name!r}); "
            "install it with: pip install 'aliceserver[mcp]'",
            file=sys.stderr,
        )
        return 2
    configure_logging(options.log_file, options.log_level)
    return serve_stdio(debugger_factory(options.cache_dir))
