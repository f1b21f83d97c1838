"""`aliceserver [gdb options] [PROG [PID]]`: a gdb-compatible MI / console server on stdio."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Callable

from aliceserver import __version__, affinity, aheadchild, foreground
from aliceserver.adapters.mi import cli_args
from aliceserver.adapters.mi.commands_misc import banner
from aliceserver.adapters.mi.output import record
from aliceserver.adapters.mi.registry import Context, Exit
from aliceserver.adapters.mi.scripts import run_to_end
from aliceserver.adapters.mi.session import MiSession, SessionConfig
from aliceserver.adapters.mi.ui import Ui
from aliceserver.debuggers.base import IDebugger
from aliceserver.errors import AliceError
from aliceserver.foreground import GatedReader
from aliceserver.transports.base import Transport
from aliceserver.transports.stdio import LineTransport

logger = logging.getLogger(__name__)
DebuggerFactory = Callable[[], IDebugger]
_CLOSE_PATIENCE = 5.0  # seconds a SIGTERM waits for the session's end before leaving


def main(argv: list[str], factory_for: Callable[[str | None], DebuggerFactory]) -> int:
    """gdb's command line; `factory_for(cache_dir)` gives the factory of the engine (the
    entry point's, as for DAP), keeping its indexes in --cache-dir's directory."""
    try:
        options = cli_args.parse(argv)
    except cli_args.UsageError as error:
        sys.stderr.write(f"aliceserver: {error}\nUse `aliceserver --help' for a complete list of options.\n")
        return 1
    if options.help:
        sys.stdout.write(cli_args.USAGE)
        return 0
    if options.version:
        sys.stdout.write(banner())
        return 0
    _setup_logging(options.log_file, options.log_level)
    affinity.pin_process()  # one session: its threads hand work to each other on one CPU
    config = SessionConfig(
        program=options.program, args=options.args, pid=options.pid, tty=options.tty,
        quiet=options.quiet, mi=options.interpreter not in (None, "console", "cli"),
        mi_version={"mi1": 2, "mi2": 2, "mi3": 3}.get(options.interpreter or "", 4),
        before=(["set annotate 1"] if options.fullname else []) + (["set write on"] if options.write else [])
        + options.before, cwd=options.cwd,  # -fullname and -write: their settings first
        after=([f"core-file {options.core}"] if options.core else []) + options.after,  # gdb's order
        shell_enabled=options.enable_shell, batch=options.batch, own_stdio=True,
    )
    raw = os.fdopen(os.dup(sys.stdin.fileno()), "rb", buffering=0)
    terminal = foreground.install(raw.fileno())  # the program holds it while it runs
    stdin = LineTransport(raw if terminal is None else GatedReader(raw, terminal), sys.stdout.buffer)
    errors = LineTransport(open(os.devnull, "rb"), sys.stderr.buffer)
    return serve(config, stdin, factory_for(options.cache_dir), errors=errors)


def serve(config: SessionConfig, transport: Transport, factory: DebuggerFactory,
          errors: Transport | None = None, install_signals: bool = True) -> int:
    """Run one session on `transport` until the client quits or its input ends."""
    ui = Ui(transport, mi=config.mi, errors=None if config.mi else errors)
    if config.cwd:
        try:
            os.chdir(config.cwd)
        except OSError as error:
            ui.log(f"{config.cwd}: {error.strerror}.\n")
    debugger = factory()
    session = MiSession(debugger, config, ui)
    terminal = foreground.installed() if config.own_stdio else None
    if terminal is not None:  # mi-async reads commands while the program runs: kept
        terminal.kept = lambda: session.settings.mi_async
    previous = None
    if install_signals:
        previous = signal.signal(signal.SIGINT, lambda number, frame: session.request_interrupt())

        def finish() -> None:
            aheadchild.close_all()  # a session waiting for one (30 s if stuck) goes on now
            # It kills a launched program and detaches an attached one; past the bound (the
            # engine busy with a long command), the kernel kills a launched one (EXITKILL).
            closing = threading.Thread(target=session.close, name="aliceserver-close", daemon=True)
            closing.start()
            closing.join(_CLOSE_PATIENCE)
            os._exit(143)  # the reader may still be blocked reading its input

        # SIGTERM: clean up, then end (SIGINT interrupts the program, as in gdb). The
        # cleanup runs in a thread of its own, not inside whatever the reader was doing.
        signal.signal(signal.SIGTERM, lambda number, frame: threading.Thread(
            target=finish, name="aliceserver-stop", daemon=True).start())  # fmt: skip
    try:
        succeeded = _startup(session, ui)
        if config.batch or session.exit_requested:
            session.exit_requested = True
            # gdb -batch: the status of its last command (1 when it failed); the program
            # still alive is killed on the way out (close).
            return session.exit_code if succeeded or not config.batch else 1
        if not ui.is_mi and ui.reads_terminal():  # gdb's init_history, after -ex and -x
            session.history.start(session)
        session.add_reader(ui)
        code = session.serve()
        session.history.save(session.settings, ui.log)  # gdb's quit_force, with history save on
        return code
    finally:
        if install_signals and previous is not None:
            signal.signal(signal.SIGINT, previous)
        session.close()


def _startup(session: MiSession, ui: Ui) -> bool:
    """The command line's commands, in gdb's order; False when the last one failed."""
    config = session.config
    if ui.is_mi:
        ui.line(record("=", "thread-group-added", [("id", "i1")]))
    if not config.quiet:
        ui.console(banner())
    succeeded = True
    session.inferior.program = None  # -iex and -ix run before gdb loads the program
    for command in config.before:
        succeeded = _startup_command(session, ui, command)
        if session.exit_requested:
            return succeeded
    if config.program:
        path = config.program
        if not os.path.exists(path):
            ui.log(f"{path}: No such file or directory.\n")
            session.inferior.program = None
            succeeded = False
        else:
            if not config.batch:  # gdb announces it only to a person (from_tty)
                ui.console(f"Reading symbols from {path}...\n")
            session.inferior.program = os.path.abspath(path)
            from aliceserver.adapters.mi.auto_load import tell_refusals

            tell_refusals(session, session.inferior.program, ui.log, ui.console)
    if config.pid is not None:
        succeeded = _startup_command(session, ui, f"attach {config.pid}")
    for command in config.after:
        if session.exit_requested:
            break
        succeeded = _startup_command(session, ui, command)
    if not config.batch and not session.exit_requested:
        ui.prompt()
    return succeeded


def _startup_command(session: MiSession, ui: Ui, command: str) -> bool:
    """One -ex/-iex command (-x/-ix: `source FILE`), run to the stop of the program it
    starts; an error is reported and the next command runs, as in gdb. False if it failed."""
    ctx = Context(session, ui, cli=True, from_tty=not session.config.batch)
    try:
        reply = run_to_end(ctx, command)
    except AliceError as error:
        ui.log(str(error).rstrip("\n") + "\n")
        return False
    except Exception as error:  # noqa: BLE001 - never die on input
        logger.exception("startup command %r", command)
        ui.log(f"Internal error: {error}\n")
        return False
    finally:
        session.take_queued_events()
    if isinstance(reply, Exit):
        session.exit_requested, session.exit_context = True, ctx
    return True


def _setup_logging(path: str | None, level: str | None) -> None:
    if not path:
        logging.getLogger().addHandler(logging.NullHandler())
        return
    logging.basicConfig(filename=path, level=getattr(logging, (level or "INFO").upper(), logging.INFO),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")


__all__ = ["main", "serve", "__version__"]
