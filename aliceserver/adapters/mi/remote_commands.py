"""Remote targets in the console and MI: `target remote|extended-remote TARGET`,
`-target-select remote|extended-remote TARGET`, `disconnect`, `monitor CMD`, printing what
gdb 13 prints (with a local sysroot: the stub's files are read from this machine)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from aliceserver.adapters.mi import target_files
from aliceserver.adapters.mi.inferior_list import claim_engine
from aliceserver.adapters.mi.libraries import library_names
from aliceserver.adapters.mi.output import Value, record, stream
from aliceserver.adapters.mi.registry import CliRegistry, Connected, Context, MiError, Reply
from aliceserver.debuggers.events import Exited
from aliceserver.debuggers.target import (
    CONNECTION_CLOSED,
    RemoteConnected,
    RemoteTargets,
    RemoteTimeouts,
)
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

KINDS = ("remote", "extended-remote")
_NO_TARGET = ("To open a remote debug connection, you need to specify what\n"
              "serial device is attached to the remote system\n(e.g. /dev/ttyS0, /dev/ttya, COM1, etc.).")  # fmt: skip


def _timeouts(session: MiSession) -> RemoteTimeouts:
    """`remotetimeout`, `tcp connect-timeout` and `tcp auto-retry` as set."""

    def seconds(name: str) -> float | None:
        value = session.settings.get(name)
        return None if value == "unlimited" else float(value)

    return RemoteTimeouts(seconds("remotetimeout"), seconds("tcp connect-timeout"),
                          session.settings.get("tcp auto-retry") == "on")  # fmt: skip


TCP_SUBCOMMANDS = {"auto-retry": "Set auto-retry on socket connect.",
                   "connect-timeout": "Set timeout limit in seconds for socket connection."}  # fmt: skip


def set_tcp_help() -> str:
    """gdb's bare `set tcp`: its prefix's subcommands."""
    rows = "".join(f"set tcp {name} -- {doc}\n" for name, doc in TCP_SUBCOMMANDS.items())
    return (f"List of set tcp subcommands:\n\n{rows}\n"
            'Type "help set tcp" followed by set tcp subcommand name for full documentation.\n'
            'Type "apropos word" to search for commands related to "word".\n'
            'Type "apropos -v word" for full documentation of commands related to "word".\n'
            "Command name abbreviations are allowed if unambiguous.\n")  # fmt: skip


def show_tcp(sentence: Callable[[str], str]) -> str:
    """gdb's bare `show tcp`: each subcommand's sentence after its name."""
    return "\n".join(f"tcp {name}:  {sentence(f'tcp {name}')}" for name in TCP_SUBCOMMANDS)


def apply_timeouts(session: MiSession) -> None:
    """`set remotetimeout` while connected: the link waits so from its next request on."""
    setter = getattr(session.debugger, "set_remote_timeouts", None)
    if setter is not None:
        setter(_timeouts(session))


def remote_held(session: MiSession) -> RemoteConnected | None:
    debugger = session.debugger
    return debugger.remote_connection() if isinstance(debugger, RemoteTargets) else None


def connect(ctx: Context, kind: str, target: str) -> RemoteConnected:
    """gdb's remote_target::open: refuse, or connect and tell what the stub debugs."""
    session = ctx.session
    debugger = session.debugger
    if not isinstance(debugger, RemoteTargets):
        raise MiError(f'"target {kind}" is not supported by this debugger engine.')
    target = target.strip()
    if not target:
        raise MiError(_NO_TARGET)
    if remote_held(ctx.session) is not None:  # gdb asks; with no terminal the answer is yes
        ctx.console("Already connected to a remote target.  Disconnect? (y or n) "
                    "[answered Y; input not from terminal]\n")  # fmt: skip
        disconnect(ctx, quiet=True)
    elif session.inferior.process is not None and session.inferior.core is None:
        ctx.console("A program is being debugged already.  Kill it? (y or n) "
                    "[answered Y; input not from terminal]\n")  # fmt: skip
        from aliceserver.adapters.mi.commands_exec import kill

        kill(ctx, quiet=True)
    if session.inferior.core is not None:
        from aliceserver.adapters.mi.core_commands import close_core

        close_core(ctx, replaced=True)
    claim_engine(session, starting=True)
    session.drop_probe()
    if ctx.cli and ctx.from_tty:
        ctx.console(f"Remote debugging using {target}\n")
    try:
        connected = debugger.connect_remote(target, extended=kind == "extended-remote",
                                            program=session.inferior.program, timeouts=_timeouts(session),
                                            exec_file_mismatch=session.settings.get("exec-file-mismatch"))  # fmt: skip
    except AliceError as error:
        raise MiError(str(error)) from None
    if connected.process is None:
        return connected
    _take_stop(ctx, connected)
    return connected


def _take_stop(ctx: Context, connected: RemoteConnected) -> None:
    """The engine's announcements handled; the stop the stub reported made the current one
    (unless the stub went away meanwhile: its loss is told instead)."""
    session = ctx.session
    inferior = session.inferior
    threads, libraries = len(connected.thread_ids), len(connected.libraries)
    session.wait_event(lambda event: isinstance(event, Exited) or (
        inferior.process is not None and len(inferior.threads) >= threads
        and len(inferior.libraries) >= libraries))  # fmt: skip
    if inferior.process is None:
        session.origin = None
        return
    if not inferior.program and connected.process is not None:
        inferior.program = connected.process.program
    stop = connected.stop
    if stop is not None:
        inferior.run.stopped_at(stop)  # no event says it: printed here, as gdb does
        inferior.selected_tid = stop.thread_id
        inferior.selected_level = 0
    session.origin = None
    for warning in connected.warnings:
        ctx.log(f"warning: {warning}\n")


def announce_attach(ctx: Context) -> None:
    """`attach` through an extended stub: its stop, as on connecting."""
    connected = remote_held(ctx.session)
    if connected is not None and connected.process is not None:
        _take_stop(ctx, connected)
        announce(ctx, connected)


def announce(ctx: Context, connected: RemoteConnected) -> None:
    """The frame line and the `*stopped` (no reason) gdb prints after connecting."""
    from aliceserver.adapters.mi.notify import _location_text, _thread_info  # the stop's own

    stop = connected.stop
    session = ctx.session
    if stop is None or session.inferior.process is None:  # none, or the stub went away
        return
    tid = stop.thread_id
    try:
        frame = session.frames.frame(tid, 0)
    except AliceError:
        frame = None
    pairs: list[tuple[str, Value]] = []
    if frame is not None:
        text, missing = _location_text(session, frame, tid, "with-pc")
        session.console_all(text)
        for ui in session.uis:  # gdb's error for a missing source file, after the location
            if missing and not ui.closed:
                ui.log(missing)
        pairs.append(("frame", session.frames.tuple(frame, tid, level=False, args=True)))
    number = session.inferior.threads.get(tid) or session.inferior.add_thread(tid)
    pairs += [("thread-id", str(number)), ("stopped-threads", "all")]
    thread = _thread_info(session, tid)
    if thread is not None and thread.core is not None:
        pairs.append(("core", str(thread.core)))
    session.broadcast(record("*", "stopped", pairs))
    session.remember_stop(frame)


def disconnect(ctx: Context, *, quiet: bool = False) -> None:
    """gdb's `disconnect`: the stub keeps the program; its threads and group exit here."""
    session = ctx.session
    debugger = session.debugger
    if remote_held(ctx.session) is None or not isinstance(debugger, RemoteTargets):
        raise MiError("You can't do that when your target is `exec'")
    inferior = session.inferior
    if inferior.running:
        raise MiError("Cannot execute this command while the target is running.")
    debugger.disconnect_remote()
    if inferior.process is not None:
        for number in sorted(inferior.threads.values()):
            session.notify("thread-exited", [("id", str(number)), ("group-id", f"i{inferior.number}")])
        session.notify("thread-group-exited", [("id", f"i{inferior.number}")])
    if not quiet and ctx.from_tty:
        ctx.console("Ending remote debugging.\n")
    for module in inferior.libraries:
        session.notify("library-unloaded", [*library_names(module), ("thread-group", f"i{inferior.number}")])
    inferior.forget_process()
    session.breakpoints.program_gone()
    session.varobjs.program_gone()


COMMAND_ABORTED = "Command aborted."  # gdb's, when a resume fails in proceed


def connection_closed(session: MiSession, *, aborting: bool = False) -> None:
    """The stub went away under us (gdb: the threads and the group exit, then
    "Remote connection closed" on the error stream; no *stopped). `aborting`: before a
    resume reached it, and the command that resumes fails (gdb's "Command aborted.")."""
    inferior = session.inferior
    aborted = session.resume_failed() if aborting else None
    session.on_stopped_or_exited()
    for number in sorted(inferior.threads.values()):
        session.notify("thread-exited", [("id", str(number)), ("group-id", f"i{inferior.number}")])
    session.notify("thread-group-exited", [("id", f"i{inferior.number}")])
    for ui in session.uis:  # once: the command that ran into it may have said it
        if not ui.closed and ui.last_written != f"{CONNECTION_CLOSED}\n":
            ui.log(f"{CONNECTION_CLOSED}\n")
    if aborted is not None:  # gdb's proceed, its resume failed: the command's own error
        ui, token, cli = aborted
        if cli or not ui.is_mi:
            ui.log(f"{COMMAND_ABORTED}\n")
        if token is not None:
            ui.result(token, "error", [("msg", COMMAND_ABORTED)])
    inferior.run.forget()
    inferior.forget_process()
    session.breakpoints.program_gone()
    session.varobjs.program_gone()
    session.after_stop()


def target(ctx: Context, kind: str, rest: str) -> Reply:
    announce(ctx, connect(ctx, kind, rest))
    return None


def target_select(ctx: Context, kind: str, args: list[str]) -> Reply:
    announce(ctx, connect(ctx, kind, " ".join(args)))
    return Connected([])


def _disconnect(ctx: Context, text: str) -> Reply:
    disconnect(ctx)
    return None


def _monitor(ctx: Context, text: str) -> Reply:
    debugger = ctx.session.debugger
    if remote_held(ctx.session) is None or not isinstance(debugger, RemoteTargets):
        raise MiError('"monitor" command not supported by this target.')
    try:
        answer = debugger.monitor(text.strip())
    except AliceError as error:
        raise MiError(str(error)) from None
    if ctx.ui.is_mi:  # the stub's words: gdb's target stream
        ctx.ui.line(stream("@", answer))
    else:
        ctx.ui.raw(answer)
    return None


def register_console(registry: CliRegistry) -> None:
    registry.add("disconnect", _disconnect)
    registry.add("monitor", _monitor)
    target_files.register_console(registry)  # remote get, put, delete
