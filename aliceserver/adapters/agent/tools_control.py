"""Session control a command line needs besides the core tools: debug_select (thread and
frame, like gdb's thread/frame/up/down), debug_catch, debug_wait, debug_restart and
debug_console (gdb's console, agent/console.py; its `x` answers here, within the budget)."""

from __future__ import annotations

import signal as signals
from typing import Any

from aliceserver.adapters.agent.common import SESSION, TIMEOUT, ToolEnv, timeout_of
from aliceserver.adapters.agent.console import AgentBreakpoints, run_console
from aliceserver.adapters.agent.context import build_context, execution_reply
from aliceserver.adapters.agent.errors import ErrorCode, ToolError, bad_argument, classify
from aliceserver.adapters.agent.registry import Args, Param, ToolRegistry, ToolSpec
from aliceserver.adapters.agent.session import State, WaitResult
from aliceserver.adapters.agent.tools_breakpoints import add_breakpoint, set_enabled
from aliceserver.adapters.gdbcommands.examine import examine
from aliceserver.adapters.gdbcommands.frames import frames_to_main
from aliceserver.adapters.gdbcommands.selection import Selection
from aliceserver.debuggers.model import CatchKind, SignalPolicy
from aliceserver.errors import AliceError
from aliceserver.session.breakpoints import UserBreakpoints

_CATCH = {"throw": CatchKind.THROW, "catch": CatchKind.CATCH, "panic": CatchKind.PANIC,
          "exec": CatchKind.EXEC, "fork": CatchKind.FORK}  # fmt: skip


def _select(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    with session.lock:
        session.require_stopped()
        debugger = session.debugger
        thread = args.integer("thread")
        if thread is not None and thread != session.current_thread:
            if thread not in {info.tid for info in debugger.threads()}:
                raise ToolError(ErrorCode.NO_THREAD, f"no thread {thread}", "debug_threads lists them")
            session.current_thread, session.current_frame = thread, 0
        level = session.current_frame
        if args.integer("frame") is not None:
            level = args.integer("frame") or 0
        level += (args.integer("up") or 0) - (args.integer("down") or 0)
        frames = frames_to_main(debugger.stack_trace(session.current_thread, 0, max(level, 0) + 1))
        if level < 0:
            raise ToolError(ErrorCode.NO_FRAME, "already at the innermost frame (0)", "")
        if level >= len(frames):
            raise ToolError(
                ErrorCode.NO_FRAME,
                f"thread {session.current_thread} has {len(frames)} frames (0..{len(frames) - 1})",
                "debug_stack lists them",
            )
        session.current_frame = level
        return build_context(env, session, level=level)


def _signal_number(name: str) -> int:
    text = name.strip().upper()
    if text.isdigit():
        return int(text)
    try:
        return int(signals.Signals[text if text.startswith("SIG") else f"SIG{text}"])
    except KeyError:
        raise bad_argument(f"no signal {name!r}", "a name like SIGUSR1 (or USR1) or a number") from None


def _catch(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    kind = args.text("kind") or "signal"
    enabled = not args.has("enabled") or args.flag("enabled")
    with session.lock:
        session.require_process()
        debugger = session.debugger
        reply: dict[str, Any] = {"session": session.id, "catch": kind, "enabled": enabled}
        if kind != "signal":
            debugger.set_catchpoint(_CATCH[kind], enabled)
            return reply
        name = args.text("signal")
        if not name:
            raise bad_argument("catch signal needs a signal", "signal=SIGUSR1")
        number = _signal_number(name)
        current = debugger.signal_policy(number)
        debugger.set_signal_policy(number, SignalPolicy(enabled, current.pass_to_program, True))
        reply["signal"] = signals.Signals(number).name if number in set(signals.Signals) else number
        reply["passed_to_program"] = current.pass_to_program
        return reply


def _wait(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    timeout = timeout_of(args)
    with session.lock:
        generation, state = session.generation, session.state
    if state is State.RUNNING:
        result = session.wait(generation, timeout)
    else:
        result = WaitResult.EXITED if state is State.EXITED else WaitResult.STOPPED
    return execution_reply(env, session, result, timeout)


def _restart(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    config = session.launch_config
    if session.core is not None:
        raise ToolError(
            ErrorCode.UNSUPPORTED,
            f"session {session.id} reads a core file: there is no program to restart",
            "debug_launch program=PATH runs the program afresh",
        )
    if config is None:
        raise ToolError(
            ErrorCode.UNSUPPORTED,
            f"session {session.id} was attached: only a launched program restarts",
            "debug_stop mode=detach, then debug_attach again",
        )
    with session.lock:
        records, numbers = list(session.breakpoints), session.breakpoints.numbers
        patterns = list(session.tracer.status().patterns) if session.tracer is not None else []
        watches = len(session.watches)
        console, session.console = session.console, None  # the old process's end is not its news
        env.sessions.remove(session)
    fresh = env.sessions.launch(config, ident=session.id)
    failed: list[str] = []
    with fresh.lock:
        fresh.breakpoints = UserBreakpoints(numbers)  # as gdb's run: one numbering, kept
        fresh.watches = UserBreakpoints(numbers)
        if console is not None:  # its breakpoints, settings and displays, as gdb's `run` keeps them
            console.rebind(fresh.debugger)
            console.attach_host(AgentBreakpoints(fresh))
            fresh.console = console
        for record in records:
            try:
                entry = add_breakpoint(
                    env, fresh, record.location, condition=record.condition,
                    hit_count=record.hit_condition, log_message=record.log_message,
                    temporary=record.temporary, number=record.number,
                )  # fmt: skip
                if not record.enabled:
                    set_enabled(fresh, int(entry["id"]), False)
            except ToolError as error:
                failed.append(f"{record.location}: {error.message}")
    reply = build_context(env, fresh)
    reply["restarted"] = True
    reply["pid"] = fresh.process.pid
    reply["breakpoints"] = len(records) - len(failed)
    if failed:
        reply["breakpoints_failed"] = failed
    if watches:
        reply["watchpoints_dropped"] = f"{watches} (they name a frame's variables: set them again)"
    if patterns:
        reply["traces_dropped"] = patterns
        reply["hint"] = "debug_trace action=add traces them again (the old record went with the session)"
    return reply


# --- the console: gdb's x within the reply's budget (agent/console.py runs the rest) ---
class _Full(Exception):
    """The reply's budget is spent: `x` stops at the start of a line, where a bare x goes on."""


class _Shown:
    """What `x` writes, up to about `limit` characters (whole lines)."""

    def __init__(self, limit: int) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.limit = limit

    def __call__(self, text: str) -> None:
        if self.size >= self.limit and self.parts and self.parts[-1].endswith("\n"):
            raise _Full
        self.parts.append(text)
        self.size += len(text)

    def text(self) -> str:
        return "".join(self.parts)


def _examine(env: ToolEnv, args: Args, argument: str) -> dict[str, Any]:
    """gdb's x in the selected thread and frame, remembering its address and format per session."""
    session = env.session(args)
    with session.lock:
        session.require_stopped()
        memory = session.commands.examine
        shown = _Shown(env.budget.max_reply // 3)  # JSON escapes tabs and quotes: room for them
        full = False
        try:
            examine(session.debugger, Selection(session.current_thread, session.current_frame),
                    memory, argument, shown)  # fmt: skip
        except _Full:
            full = True
        except AliceError as error:  # gdb prints the error after what was shown
            failure = classify(error)
            raise ToolError(failure.code, shown.text() + failure.message, failure.hint) from None
    reply: dict[str, Any] = {"session": session.id, "output": shown.text().removesuffix("\n")}
    if full and memory.next_address is not None:
        reply["omitted"] = [{"what": f"what follows {memory.next_address:#x} (the reply's size budget)",
                             "how": "debug_console command=x (a bare x goes on there)"}]  # fmt: skip
    return reply


def register(registry: ToolRegistry, env: ToolEnv) -> None:
    registry.add(ToolSpec(
        "debug_select",
        "Select the thread and frame that later inspection uses by default (gdb's thread N, "
        "frame N, up, down); the reply is the context there. Every stop selects frame 0 of "
        "the stopped thread again.",
        (
            SESSION,
            Param("thread", "integer", "Make this thread current (its frame 0).", minimum=1),
            Param("frame", "integer", "Select this frame (0: innermost).", minimum=0),
            Param("up", "integer", "Select the frame this many levels outward (toward main).", minimum=0),
            Param("down", "integer", "Select the frame this many levels inward.", minimum=0),
        ),
        lambda a: _select(env, a),
    ))
    registry.add(ToolSpec(
        "debug_catch",
        "Stop when the program receives a signal (kind=signal, signal=SIGUSR1), throws or "
        "catches a C++ exception, panics (Rust), execs or forks; enabled=false stops catching.",
        (
            SESSION,
            Param("kind", "string", "signal (default), throw, catch, panic, exec or fork.",
                  enum=("signal", *_CATCH), default="signal"),
            Param("signal", "string", "kind=signal: its name (SIGUSR1, USR1) or number."),
            Param("enabled", "boolean", "false: stop catching it (default true)."),
        ),
        lambda a: _catch(env, a),
    ))
    registry.add(ToolSpec(
        "debug_wait",
        "Wait for a running program to stop (it is not resumed); the reply is the new "
        "context, or says it still runs. A stopped program's context comes at once.",
        (SESSION, TIMEOUT),
        lambda a: _wait(env, a),
        read_only=True,
    ))
    registry.add(ToolSpec(
        "debug_restart",
        "Start a launched program again in the same session (same id, arguments and "
        "breakpoints); it is held before its first instruction, like debug_launch.",
        (SESSION,),
        lambda a: _restart(env, a),
    ))
    registry.add(ToolSpec(
        "debug_console",
        "One line of gdb's console, with gdb's output: bt, info frame|locals|args|registers|"
        "breakpoints|sharedlibrary|signals..., p[/FMT] EXPR, ptype, whatis, list, x/NFU ADDR "
        "(a bare x goes on after the last), set var X = V, set $v = ..., set print pretty on, "
        "break/tbreak/condition/delete, display, frame N, up, down, thread N, thread apply all "
        "bt, help. continue/next/step/finish/stepi/until/advance run through the execution "
        "tools (the reply is the new context). A line that is no command is evaluated as an "
        "expression. Commands use the frame debug_select chose; frame/up/down change it.",
        (SESSION, Param("command", "string", "The command line.", required=True)),
        lambda a: run_console(registry, env, a, _examine),
    ))

