"""Command line entry point: `python -m aliceserver` / the `aliceserver` script."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from aliceserver import __version__
from aliceserver.startup import import_quietly, leave, reserve_descriptors, undo_locale_coercion

if TYPE_CHECKING:  # imported when needed: gdb's command line (the MI path) does without it
    import argparse

    from aliceserver.debuggers.base import IDebugger


def _parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="aliceserver",
        description="A debugger server (DAP, GDB/MI) over its own Linux ptrace engine.",
    )
    parser.add_argument("--version", action="version", version=f"aliceserver {__version__}")
    parser.add_argument(
        "--adapter", choices=("dap", "mcp"), help="serve this protocol (on stdio unless --port is given)"
    )
    parser.add_argument(
        "--port", type=int, help="listen on this TCP port (0: any free port); one session per connection"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on with --port (default 127.0.0.1)"
    )
    parser.add_argument("--log-file", help="write the log here (default: standard error)")
    parser.add_argument(
        "--cache-dir", metavar="DIR", help="keep the debug info indexes in DIR (default "
        "$ALICESERVER_CACHE_DIR, else $XDG_CACHE_HOME/aliceserver/index)",
    )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        type=str.upper,
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="DEBUG includes the wire traffic (the aliceserver.wire logger)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    # The demo parses its own arguments (including -h), so they pass through untouched.
    commands.add_parser("demo", help="run the built-in demonstration", add_help=False)
    commands.add_parser("cli", help="debug from the shell (see `aliceserver cli --help`)", add_help=False)
    cache = commands.add_parser("cache", help="the index cache: `cache info` (size, entries) or `cache clear`")
    cache.add_argument("action", choices=("info", "clear"))
    cache.add_argument("--cache-dir", metavar="DIR", dest="cache_dir_here", help="this cache directory")
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


def _program_ahead(argv: list[str]) -> None:
    """The program's index built by a child while this process imports the front end and
    the engine, when the command line names a program to run (programahead.py)."""
    from aliceserver import programahead
    from aliceserver.adapters.mi.cli_args import UsageError, parse

    try:
        gdb_args = parse(argv)
    except UsageError:
        return  # (the front end says so)
    elsewhere = gdb_args.pid is not None or gdb_args.core is not None or gdb_args.cwd is not None
    if not (elsewhere or gdb_args.version or gdb_args.help):  # (a process, a core: no run)
        programahead.start(gdb_args.program, gdb_args.cache_dir)


def main(argv: list[str] | None = None) -> int:
    """The command line `argv` (None: the process's own, and then gdb's command line ends
    the process when it is done, startup.leave)."""
    own_process = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    undo_locale_coercion()  # the programs we run see the user's environment, as under gdb
    reserve_descriptors()  # while this process has one thread (see there)
    if argv[:1] == ["cli"]:  # before the gdb check, which would take `cli` for a program
        from aliceserver.adapters.cli.main import main as cli_main

        return cli_main(argv[1:])
    # Quietly (startup.py): its dataclasses are the first, and would import inspect.
    looks_like_gdb = import_quietly("aliceserver.adapters.mi.cli_args").looks_like_gdb
    if looks_like_gdb(argv) and argv[:1] != ["cache"]:  # gdb's command line (-i=mi, -q, PROG...): the MI front end
        _program_ahead(argv)  # before the front end's imports, which its child overlaps
        from aliceserver.engines import debugger_factory

        gdb_main = import_quietly("aliceserver.adapters.mi.main").main
        code = cast("Callable[[list[str], Callable[[str | None], Callable[[], IDebugger]]], int]",
                    gdb_main)(argv, debugger_factory)  # fmt: skip
        if own_process:
            leave(code)
        return code
    parser = _parser()
    options, _ = parser.parse_known_args(argv)
    if options.command == "demo":
        return _run_demo(argv[argv.index("demo") + 1 :])
    options = parser.parse_args(argv)  # reports unknown options and exits
    if options.command == "cache":
        from aliceserver.cache_command import cache_command

        return cache_command(options.action, options.cache_dir_here or options.cache_dir)
    if options.adapter == "mcp":
        if options.port is not None:
            parser.error("--adapter mcp serves on stdio only")
        from aliceserver.serve_mcp import serve_mcp  # lazily: the MCP SDK is heavy

        return serve_mcp(options)
    if options.adapter == "dap":
        # Imported lazily: `--version` and the demo do not need the adapter.
        serve_dap = import_quietly("aliceserver.serve").serve_dap
        return cast("Callable[[argparse.Namespace], int]", serve_dap)(options)
    if options.port is not None:
        parser.error("--port needs --adapter")
    parser.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
