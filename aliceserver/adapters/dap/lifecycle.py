"""Session life: initialize, launch / attach, configurationDone, restart, terminate,
disconnect.

The debuggee starts when both launch (or attach) and configurationDone have arrived, in
either order: launch makes the engine load the program and hold it before its first
instruction (so breakpoints set meanwhile bind), and is answered at once.
"""

from __future__ import annotations

import logging
import os
import shlex
from typing import TYPE_CHECKING, Any

from aliceserver.adapters.dap import remote, terminal
from aliceserver.adapters.dap.capabilities import capabilities
from aliceserver.adapters.dap.messages import Arguments, InvalidArguments, JsonObject, WrongState
from aliceserver.adapters.dap.sourcemap import apply_source_maps
from aliceserver.adapters.dap.state import ClientInfo, SessionState, Target
from aliceserver.debuggers.model import DynamicTypes, LaunchConfig, StdioMode
from aliceserver.debuggers.target import CoreTargets
from aliceserver.errors import AliceError, Unsupported

if TYPE_CHECKING:
    from aliceserver.adapters.dap.registry import Registry
    from aliceserver.adapters.dap.session import DapSession
    from aliceserver.debuggers.base import IDebugger

log = logging.getLogger(__name__)

_TERMINALS = {"integratedTerminal": "integrated", "externalTerminal": "external"}


def initialize(session: DapSession, args: Arguments) -> JsonObject:
    state = session.state
    if state.initialized:
        raise WrongState("initialize: the session is initialized already")
    state.initialized = True
    state.client = ClientInfo.from_arguments(dict(args.raw))
    # `initialized` right after this response: clients may configure before launch.
    session.after_response(lambda: session.send_event("initialized"))
    return capabilities(session.registry)


def _environment(args: Arguments) -> dict[str, str] | None:
    raw = args.raw.get("env")
    if raw is None:
        return None
    env = dict(os.environ)
    if isinstance(raw, dict):  # VS Code style: {"NAME": "value" | null (= unset)}
        items = list(raw.items())
    elif isinstance(raw, list):  # cpptools style: [{"name": ..., "value": ...}]
        items = []
        for entry in raw:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                raise InvalidArguments("launch: 'env' entries must be {name, value} objects")
            items.append((entry["name"], entry.get("value")))
    else:
        raise InvalidArguments("launch: 'env' must be an object of strings")
    for name, value in items:
        if value is None:
            env.pop(name, None)
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
            env[name] = str(value)
        else:
            raise InvalidArguments(f"launch: 'env.{name}' must be a string or null")
    return env


def launch_config(args: Arguments) -> LaunchConfig:
    program = args.string("program")
    if not program:
        raise InvalidArguments("launch: 'program' must not be empty")
    raw_args = args.raw.get("args")
    if isinstance(raw_args, str):  # a command-line string, as some configurations give
        program_args = shlex.split(raw_args)
    else:
        program_args = args.strings("args")
    config = LaunchConfig(
        program=program,
        args=tuple(program_args),
        cwd=args.opt_string("cwd") or None,
        env=_environment(args),
        stop_on_entry=args.boolean("stopOnEntry"),
        disable_aslr=args.boolean("disableASLR", True),
    )
    problem = config.unusable()  # the engine refuses it too; here it is a bad argument
    if problem is not None:
        raise InvalidArguments(f"launch: {problem}")
    return config


def launch(session: DapSession, args: Arguments) -> JsonObject | None:
    state = session.state
    if state.target is not Target.NONE:
        raise WrongState(f"launch: a program is being debugged already ({state.target.value})")
    if _core_path(args) is not None:
        return open_core(session, args, "launch")
    address = remote.remote_address(args)
    if address is not None:
        return _launch_remote(session, args, address)
    config = launch_config(args)
    _apply_paths("launch", args, session.debugger)
    console = args.opt_string("console") or "internalConsole"
    relay = None
    if console in _TERMINALS and state.client.run_in_terminal:
        relay = terminal.TerminalRelay.create()
        config = LaunchConfig(**{**_fields(config), "stdio": StdioMode.TTY, "tty": relay.tty})
    try:
        session.debugger.launch(config)
    except BaseException:
        if relay is not None:
            relay.close()
        raise
    state.target = Target.LAUNCH
    state.launch_config = config
    state.launch_arguments = dict(args.raw)
    _dynamic_types(state, args)
    if relay is not None:
        session.on_end.append(relay.close)
        session.after_response(lambda: terminal.start(session, relay, _TERMINALS[console], config))
    session.after_response(lambda: maybe_start(session))
    return None


def _launch_remote(session: DapSession, args: Arguments, address: str) -> JsonObject | None:
    """launch on a stub: it runs the program (extended-remote), or holds it already."""
    state = session.state
    config = launch_config(args) if args.has("program") else None
    _apply_paths("launch", args, session.debugger)
    connected = remote.launch(session, args, address, config)
    state.target = Target.LAUNCH
    state.launch_config = None  # restart: the stub's program is not ours to start again
    state.launch_arguments = dict(args.raw)
    state.stop_on_entry = args.boolean("stopOnEntry")
    state.entry_thread = connected.stop.thread_id if connected.stop is not None else None
    _dynamic_types(state, args)
    session.after_response(lambda: maybe_start(session))
    return None


def _apply_paths(verb: str, args: Arguments, debugger: IDebugger) -> None:
    """The session's paths from the launch (or attach) arguments: `sourceMap` and
    `sourceFileMap` rules, and `autoLoadSafePath` (a directory, a ':'-separated list or an
    array of them): where the images' gdb printer scripts may run from, besides gdb's
    default safe path (gdb's add-auto-load-safe-path)."""
    apply_source_maps(verb, args, debugger.source_paths)
    raw = args.raw.get("autoLoadSafePath")
    if raw is None:
        return
    directories = [raw] if isinstance(raw, str) else raw
    if not isinstance(directories, list) or not all(isinstance(d, str) and d for d in directories):
        raise InvalidArguments(f"{verb}: 'autoLoadSafePath' must be a directory or an array of directories")
    for directory in directories:
        debugger.auto_load.add_safe_path(directory)


def _fields(config: LaunchConfig) -> dict[str, Any]:
    return {name: getattr(config, name) for name in LaunchConfig.__slots__}


def attach(session: DapSession, args: Arguments) -> JsonObject | None:
    state = session.state
    if state.target is not Target.NONE:
        raise WrongState(f"attach: a program is being debugged already ({state.target.value})")
    if _core_path(args) is not None:
        return open_core(session, args, "attach")
    address = remote.remote_address(args)
    raw = args.raw.get("pid", args.raw.get("processId"))
    if isinstance(raw, str) and raw.strip().isdigit():
        raw = int(raw)
    if address is not None and raw is None:
        pass  # the stub's own process
    elif not isinstance(raw, int) or isinstance(raw, bool) or raw <= 0:
        raise InvalidArguments("attach: 'pid' must be a process id (a positive integer)")
    _apply_paths("attach", args, session.debugger)
    if address is not None:
        connected = remote.attach(session, args, address, raw)
        state.entry_thread = connected.stop.thread_id if connected.stop is not None else None
    else:
        state.swallow_attach_stop = True  # set before the engine posts that stop
        try:
            session.debugger.attach(raw)
        except BaseException:
            state.swallow_attach_stop = False
            raise
    state.target = Target.ATTACH
    state.stop_on_entry = args.boolean("stopOnEntry")
    _dynamic_types(state, args)
    session.after_response(lambda: maybe_start(session))
    return None


def _core_path(args: Arguments) -> str | None:
    """lldb-vscode's `coreFile`, cpptools' `coreDumpPath`."""
    for key in ("coreFile", "coreDumpPath"):
        value = args.raw.get(key)
        if value is not None:
            if not isinstance(value, str) or not value:
                raise InvalidArguments(f"'{key}' must be the path of a core file")
            return value
    return None


def open_core(session: DapSession, args: Arguments, verb: str) -> JsonObject | None:
    """Debug a core file: stopped at once (no configurationDone needed to run anything)."""
    debugger = session.debugger
    if not isinstance(debugger, CoreTargets):
        raise InvalidArguments(f"{verb}: this debugger engine cannot open core files")
    core = _core_path(args)
    assert core is not None
    _apply_paths(verb, args, debugger)
    opened = debugger.open_core(core, args.opt_string("program") or None)
    state = session.state
    state.target = Target.CORE
    _dynamic_types(state, args)
    warnings = "".join(f"warning: {text}\n" for text in opened.warnings)
    if warnings:
        session.after_response(lambda: session.send_event("output", {"category": "console", "output": warnings}))
    stop = opened.stop
    body: JsonObject = {"reason": "exception" if stop.signal else "pause", "threadId": stop.thread_id,
                        "allThreadsStopped": True}  # fmt: skip
    if stop.signal:
        body["description"] = stop.description  # the signal's, as gdb's "Segmentation fault"
        body["text"] = stop.signal_name or ""
    session.after_response(lambda: session.send_event("stopped", body))
    return None


def _dynamic_types(state: SessionState, args: Arguments) -> None:
    if not args.boolean("dynamicTypes", True):
        state.dynamic = DynamicTypes.NONE


def configuration_done(session: DapSession, args: Arguments) -> JsonObject | None:
    session.state.configuration_done = True
    session.after_response(lambda: maybe_start(session))
    return None


def maybe_start(session: DapSession) -> None:
    """Run the debuggee once launch/attach and configurationDone have both arrived."""
    state = session.state
    if state.started or not state.configuration_done or state.target is Target.NONE:
        return
    state.started = True
    if session.debugger.process is None or state.target is Target.CORE:  # a core: nothing runs
        return
    if state.stop_on_entry:  # attach, or launch on a stub: say where it stands
        process = session.debugger.process
        attached = state.target is Target.ATTACH
        session.send_event("stopped", {
            "reason": "pause" if attached else "entry", "threadId": state.entry_thread or process.pid,
            "allThreadsStopped": True, "description": "Attached" if attached else "Entry point",
        })  # fmt: skip
        return
    try:
        with session.resuming():
            session.debugger.resume()
    except AliceError as error:
        session.send_event(
            "output", {"category": "important", "output": f"Cannot start: {error}\n"}
        )


def disconnect(session: DapSession, args: Arguments) -> JsonObject | None:
    debugger = session.debugger
    process = debugger.process
    if process is not None:
        on_stub = remote.is_remote(session)  # by the request there: attach leaves what the stub started
        launched = session.state.target is Target.LAUNCH
        terminate = args.boolean("terminateDebuggee", launched if on_stub else not process.attached)
        session.state.quiet = True  # the client has said goodbye: no more events
        try:
            if on_stub:
                remote.end(session, terminate)
            else:
                debugger.kill() if terminate else debugger.detach()
        except AliceError as error:
            log.info("disconnect: %s", error)
    session.state.quiet = True
    session.ending = True
    return None


def terminate(session: DapSession, args: Arguments) -> JsonObject | None:
    state = session.state
    if session.debugger.process is not None:  # the Exited event brings `exited` and `terminated`
        remote.end(session, True) if remote.is_remote(session) else session.debugger.kill()
    elif not state.ended:
        state.ended = True
        session.after_response(lambda: session.send_event("terminated"))
    return None


def restart(session: DapSession, args: Arguments) -> JsonObject | None:
    state = session.state
    if state.target is Target.LAUNCH and state.launch_config is None:  # launched on a stub
        raise Unsupported("restart: a program on a stub is not restarted; disconnect and launch again")
    if state.target is not Target.LAUNCH or state.launch_config is None:
        raise Unsupported("restart: only a launched program can be restarted")
    config = state.launch_config
    new_arguments = args.opt_object("arguments")
    if new_arguments is not None:
        fresh = launch_config(Arguments("restart", new_arguments.raw))
        config = LaunchConfig(**{**_fields(fresh), "stdio": config.stdio, "tty": config.tty})
    debugger = session.debugger
    process = debugger.process
    if process is not None:
        state.suppress_exit_of = process.pid
        debugger.kill()
    state.ended = False
    started = debugger.launch(config)
    for bp in session.breakpoints.every():
        bp.hits = 0  # gdb's clear_breakpoint_hit_counts at a run
    if session.console is not None:  # as gdb's `run`: the console's breakpoints, set afresh
        session.console.restarted(started.pid)
    state.launch_config = config
    if state.started:
        state.started = False
        session.after_response(lambda: maybe_start(session))
    return None


def register(registry: Registry) -> None:
    registry.add("initialize", initialize)
    registry.add("launch", launch)
    registry.add("attach", attach)
    registry.add("configurationDone", configuration_done)
    registry.add("disconnect", disconnect)
    registry.add("terminate", terminate)
    registry.add("restart", restart)
    registry.declare("supportTerminateDebuggee", True)  # disconnect's terminateDebuggee
