"""Command line entry point: `python -m aliceserver` / the `aliceserver` script."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from typing import cast

from aliceserver import __version__


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aliceserver",
        description="A debugger server (DAP, GDB/MI) over its own Linux ptrace engine.",
    )
    parser.add_argument("--version", action="version", version=f"aliceserver {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    # The demo parses its own arguments (including -h), so they pass through untouched.
    commands.add_parser("demo", help="run the built-in demonstration", add_help=False)
    return parser


def _run_demo(args: list[str]) -> int:
    # Imported lazily: the demo pulls in the whole engine, which `--version` does not need.
    try:
        module = importlib.import_module("aliceserver.demo")
    except ModuleNotFoundError as error:
        if error.name != "aliceserver.demo":
            raise
        print("aliceserver: the demo is not available in this build", file=sys.stderr)
        return 2
    demo_main = cast(Callable[[list[str]], "int | None"], module.main)
    return demo_main(args) or 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    options, _ = parser.parse_known_args(argv)
    if options.command == "demo":
        return _run_demo(argv[argv.index("demo") + 1 :])
    parser.parse_args(argv)  # reports unknown options and exits
    parser.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
