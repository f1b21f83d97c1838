"""The CLI's session daemon as a process (`python -m aliceserver.serve_cli`), started by
the first `aliceserver cli` command; see aliceserver/adapters/cli/daemon.py."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from aliceserver.adapters.cli.daemon import DEFAULT_IDLE
from aliceserver.adapters.cli.paths import UnsafePath, prepare


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aliceserver-daemon", description=__doc__)
    parser.add_argument("--dir", help="the daemon directory (default: the per-user one)")
    parser.add_argument("--idle-timeout", type=float, default=DEFAULT_IDLE,
                        help="exit after this many seconds without a command")  # fmt: skip
    parser.add_argument("--fork", action="store_true",
                        help="fork once more and let the starter go (a double fork)")  # fmt: skip
    parser.add_argument("--cache-dir", help="where the debug info indexes are kept")
    parser.add_argument("--log-level", default="INFO", type=str.upper,
                        choices=("DEBUG", "INFO", "WARNING", "ERROR"))  # fmt: skip
    return parser


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    if options.fork and os.fork() > 0:
        # The starter (a command) waits for this process only; the daemon, its child, is
        # orphaned and belongs to no command. Safe: nothing but the interpreter runs yet.
        os._exit(0)
    try:
        paths = prepare(options.dir)
    except (UnsafePath, OSError) as error:
        print(f"aliceserver daemon: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        stream=sys.stderr,
        level=options.log_level,
        format="%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s",
    )
    # Imported here: the engine loads in the daemon only, never in a command.
    from aliceserver.adapters.cli.daemon import Daemon
    from aliceserver.engines import debugger_factory

    daemon = Daemon(paths, debugger_factory(options.cache_dir), idle_timeout=options.idle_timeout)
    daemon.bind()
    daemon.serve()
    logging.getLogger(__name__).info("daemon %d exits: %s", os.getpid(), daemon.stop_reason)
    return 0


if __name__ == "__main__":
    sys.exit(main())
