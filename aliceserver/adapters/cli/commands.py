"""The subcommands and the tool call each one makes (argparse in, a `Plan` out)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_BREAK_ACTIONS = ("list", "remove", "delete", "enable", "disable")
_TIMED = frozenset({"start", "attach", "continue", "next", "step", "stepi", "finish", "until",
                    "pause", "await"})  # fmt: skip
_CATCH_KINDS = ("signal", "throw", "catch", "panic", "exec", "fork")


def _add_path_options(command: argparse.ArgumentParser) -> None:
    """A session's paths: --source-map and --auto-load-safe-path."""
    command.add_argument("--source-map", action="append", metavar="FROM=TO",
                         help="sources built under FROM are under TO here (gdb's set substitute-path)")
    command.add_argument("--auto-load-safe-path", action="append", metavar="DIR",
                         help="gdb printer scripts (PROG-gdb.py) may run from DIR too "
                              "(gdb's add-auto-load-safe-path)")  # fmt: skip


def _with_paths(o: argparse.Namespace, arguments: dict[str, Any]) -> dict[str, Any]:
    if o.source_map:
        arguments["source_map"] = o.source_map
    if o.auto_load_safe_path:
        arguments["auto_load_safe_path"] = o.auto_load_safe_path
    return arguments


@dataclass(slots=True)
class Plan:
    op: str  # call, output, status, shutdown, cache
    tool: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)


class UsageError(Exception):
    pass


def _timeout(options: argparse.Namespace, arguments: dict[str, Any]) -> dict[str, Any]:
    value = getattr(options, "cmd_timeout", None)
    value = options.timeout if value is None else value
    if value is not None:
        arguments["timeout"] = value
    return arguments


def _start(o: argparse.Namespace) -> Plan:
    args = list(o.args)
    if args[:1] == ["--"]:
        args = args[1:]
    arguments: dict[str, Any] = {
        "program": os.path.abspath(o.program) if os.sep in o.program or os.path.exists(o.program) else o.program,
        "args": args,
        "cwd": os.getcwd(),  # the daemon's own directory is /: run where the command ran
        "env": dict(os.environ),  # and with this shell's environment, not the daemon's
        "breakpoints": o.brk or [],
        "stop_on_entry": o.stop_on_entry,
    }
    return Plan("call", "debug_launch", _timeout(o, _with_paths(o, arguments)))


def _core(o: argparse.Namespace) -> Plan:
    """`core PROG CORE` as gdb's command line, or `core CORE` (the program it names)."""
    program, core = (o.first, o.second) if o.second is not None else (None, o.first)
    arguments: dict[str, Any] = {"core": os.path.abspath(core)}  # the daemon's directory is /
    if program is not None:
        arguments["program"] = os.path.abspath(program)
    return Plan("call", "debug_core", _with_paths(o, arguments))


def _connect(o: argparse.Namespace) -> Plan:
    """`connect HOST:PORT [PROG]`, as gdb's `target remote HOST:PORT` with PROG's symbols."""
    arguments: dict[str, Any] = {"target": o.target, "breakpoints": o.brk or []}
    if o.program is not None:
        arguments["program"] = os.path.abspath(o.program)  # the daemon's directory is /
    if o.extended:
        arguments["extended"] = True
    return Plan("call", "debug_connect", _with_paths(o, arguments))


def _break(o: argparse.Namespace) -> Plan:
    words = list(o.words)
    if not words or words[0] == "list":
        return Plan("call", "debug_breakpoint", {"action": "list"})
    if words[0] in _BREAK_ACTIONS:
        if len(words) != 2 or not words[1].isdigit():
            raise UsageError(f"break {words[0]} ID (break list shows the ids)")
        action = "remove" if words[0] == "delete" else words[0]
        return Plan("call", "debug_breakpoint", {"action": action, "id": int(words[1])})
    arguments: dict[str, Any] = {"action": "add", "location": " ".join(words)}
    if o.condition:
        arguments["condition"] = o.condition
    if o.hit_count:
        arguments["hit_count" if o.hit_count.isdigit() else "hit_condition"] = (
            int(o.hit_count) if o.hit_count.isdigit() else o.hit_count
        )
    if o.log:
        arguments["log_message"] = o.log
    if o.temporary:
        arguments["temporary"] = True
    return Plan("call", "debug_breakpoint", arguments)


def _watch(o: argparse.Namespace) -> Plan:
    words = list(o.words)
    if not words or words[0] == "list":
        return Plan("call", "debug_watch", {"action": "list"})
    if words[0] in ("remove", "delete") and len(words) == 2 and words[1].isdigit():
        return Plan("call", "debug_watch", {"action": "remove", "id": int(words[1])})
    access = "read_write" if o.read or o.access else "write"  # x86 has no read-only watch
    return Plan("call", "debug_watch", {"expression": " ".join(words), "access": access})


def _step(kind: str) -> Callable[[argparse.Namespace], Plan]:
    def plan(o: argparse.Namespace) -> Plan:
        arguments: dict[str, Any] = {"kind": kind}
        if getattr(o, "count", None):
            arguments["count"] = o.count
        return Plan("call", "debug_step", _timeout(o, arguments))

    return plan


def _catch(o: argparse.Namespace) -> Plan:
    arguments: dict[str, Any] = {"kind": o.kind, "enabled": not o.off}
    if o.kind == "signal":
        if not o.signal:
            raise UsageError("catch signal NAME (SIGUSR1, USR1 or a number)")
        arguments["signal"] = o.signal
    return Plan("call", "debug_catch", arguments)


def _trace(o: argparse.Namespace) -> Plan:
    arguments: dict[str, Any] = {"action": o.action}
    if o.action == "add" and not o.patterns:
        raise UsageError("trace add PATTERN... (parse_*, @file:lexer.c, @usercode)")
    if o.patterns:
        arguments["patterns"] = list(o.patterns)
    if o.keep:
        arguments["keep"] = True
    if o.ring_memory is not None:
        arguments["ring_memory_mib"] = o.ring_memory
    return Plan("call", "debug_trace", arguments)


def _query(o: argparse.Namespace) -> Plan:
    arguments: dict[str, Any] = {}
    names = {
        "kind": "kinds", "function": "function", "contains": "function_contains",
        "regex": "function_regex", "file": "file", "returned": "return_value",
        "thread": "thread", "since": "since_ms", "until": "until_ms",
        "min_duration": "min_duration_ms", "limit": "limit", "offset": "offset",
    }  # fmt: skip
    for option, parameter in names.items():
        value = getattr(o, option)
        if value is not None:
            arguments[parameter] = value
    if o.void is not None:
        arguments["return_is_null"] = o.void
    return Plan("call", "debug_query", arguments)


def _call(tool: str, build: Callable[[argparse.Namespace], dict[str, Any]] | None = None,
          timed: bool = False) -> Callable[[argparse.Namespace], Plan]:  # fmt: skip
    def plan(o: argparse.Namespace) -> Plan:
        arguments = build(o) if build is not None else {}
        return Plan("call", tool, _timeout(o, arguments) if timed else arguments)

    return plan


def _some(**values: Any) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None and v != [] and v is not False}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aliceserver-cli",
        description="Debug native programs from the shell: a per-user daemon keeps the "
        "session between commands (start it with `start PROG`).",
    )
    parser.add_argument("--json", action="store_true", help="print the reply as JSON")
    parser.add_argument("--session", "-s", help="the session to act on (default: the last started)")
    parser.add_argument("--timeout", type=float, help="seconds to wait for a stop (default 10)")
    parser.add_argument("--dir", help="daemon directory (default $XDG_RUNTIME_DIR/aliceserver or "
                        "/tmp/aliceserver-UID; also ALICESERVER_CLI_DIR)")  # fmt: skip
    parser.add_argument("--idle-timeout", type=float, help="seconds a newly started daemon "
                        "waits without commands before it exits (default 1800)")  # fmt: skip
    parser.add_argument("--cache-dir", metavar="DIR", help="where a newly started daemon keeps the "
                        "debug info indexes (default $ALICESERVER_CACHE_DIR, else "
                        "$XDG_CACHE_HOME/aliceserver/index); `cache` acts on it")  # fmt: skip
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, plan: Callable[[argparse.Namespace], Plan], text: str,
            aliases: tuple[str, ...] = ()) -> argparse.ArgumentParser:  # fmt: skip
        command = sub.add_parser(name, help=text, description=text, aliases=list(aliases))
        command.set_defaults(plan=plan)
        if name in _TIMED:  # its own option too (a subcommand's default would hide the global one)
            command.add_argument("--timeout", dest="cmd_timeout", type=float, metavar="S",
                                 help="seconds to wait for the stop (default 10)")  # fmt: skip
        return command

    p = add("start", _start, "launch PROG [-- ARGS] (held before it runs; then break, continue)")
    p.add_argument("--break", "-b", dest="brk", action="append", metavar="LOC", help="break here first")
    p.add_argument("--stop-on-entry", action="store_true", help="run to the entry point")
    _add_path_options(p)
    p.add_argument("program")
    p.add_argument("args", nargs=argparse.REMAINDER)
    p = add("attach", _call("debug_attach", lambda o: _with_paths(o, {"pid": o.pid}), True),
            "attach to a process")  # fmt: skip
    _add_path_options(p)
    p.add_argument("pid", type=int)
    p = add("core", _core, "open a core file: core [PROG] CORE (read-only, stopped where it died)")
    _add_path_options(p)
    p.add_argument("first", metavar="PROG")
    p.add_argument("second", metavar="CORE", nargs="?")
    p = add("connect", _connect, "debug the program a gdbserver holds: connect HOST:PORT [PROG] "
            "(--extended: a gdbserver --multi starts PROG)")
    p.add_argument("--break", "-b", dest="brk", action="append", metavar="LOC", help="break here first")
    p.add_argument("--extended", action="store_true", help="extended-remote (gdb's target extended-remote)")
    _add_path_options(p)
    p.add_argument("target", metavar="HOST:PORT")
    p.add_argument("program", metavar="PROG", nargs="?", help="the local copy of the program (its symbols)")
    add("disconnect", _call("debug_disconnect"), "end a connect session; the stub keeps the program")
    add("stop", _call("debug_stop", lambda o: {"mode": "kill"} if o.kill else {}),
        "end the session (kills a launched program)").add_argument("--kill", action="store_true")
    add("detach", _call("debug_stop", lambda o: {"mode": "detach"}), "end the session, program runs on")
    add("restart", _call("debug_restart"), "start the program again, same breakpoints")
    add("status", lambda o: Plan("status"), "the daemon and its sessions")
    add("shutdown", lambda o: Plan("shutdown"), "stop the daemon (and every session)")
    add("cache", lambda o: Plan("cache"), "the debug info index cache: info (size, entries) | clear"
        ).add_argument("action", choices=("info", "clear"))  # fmt: skip
    p = add("break", _break, "break LOC | list | remove ID | enable ID | disable ID", ("b",))
    p.add_argument("words", nargs="*", metavar="LOC")
    p.add_argument("--condition", "-c", help="stop only when this C expression is true")
    p.add_argument("--hit-count", help="stop from this hit on (N), or '% 3', '== 5'")
    p.add_argument("--log", help="print this message ({expr} substituted) instead of stopping")
    p.add_argument("--temporary", "-t", action="store_true", help="delete at its first stop")
    p = add("watch", _watch, "watch EXPR | list | remove ID (stop when it is written)")
    p.add_argument("words", nargs="*", metavar="EXPR")
    p.add_argument("--read", action="store_true", help="also stop on reads (x86: read or write)")
    p.add_argument("--access", action="store_true", help="stop on reads and writes")
    add("continue", _call("debug_continue", None, True), "resume; wait for the next stop", ("c",))
    for name, kind, alias, text in (("next", "over", "n", "step over calls"),
                                    ("step", "into", "s", "step into calls"),
                                    ("stepi", "instruction", "si", "one instruction")):  # fmt: skip
        add(name, _step(kind), text, (alias,)).add_argument("count", type=int, nargs="?")
    add("finish", _step("out"), "run until the function returns (shows the value)")
    p = add("until", _call("debug_run_to", lambda o: {"location": o.location}, True),
            "run to LOC (or until the function returns)")
    p.add_argument("location")
    add("pause", _call("debug_pause", None, True), "stop the running program")
    add("await", _call("debug_wait", None, True), "wait for the running program to stop")
    add("context", _call("debug_context"), "where it stopped: source, locals, output", ("where",))
    p = add("backtrace", _call("debug_stack", lambda o: _some(count=o.limit, locals=o.locals)),
            "the stack", ("bt",))
    p.add_argument("--locals", action="store_true", help="with each frame's variables")
    p.add_argument("--limit", type=int, help="at most this many frames")
    add("frame", _call("debug_select", lambda o: {"frame": o.n}), "select frame N").add_argument("n", type=int)
    for name in ("up", "down"):
        p = add(name, _call("debug_select", _levels(name)), f"select the frame {name}")
        p.add_argument("n", type=int, nargs="?", default=1)
    add("locals", _call("debug_variables", lambda o: {"scope": "locals"}), "arguments and locals")
    add("args", _call("debug_variables", lambda o: {"scope": "arguments"}), "the frame's arguments")
    p = add("expand", _call("debug_variables", lambda o: _some(
        path=" ".join(o.path), start=o.start, count=o.count, depth=o.depth)),
        "the members or elements of a value, a page at a time")  # fmt: skip
    p.add_argument("path", nargs="+", metavar="EXPR")
    p.add_argument("--start", type=int, help="the first child (default 0)")
    p.add_argument("--count", type=int, help="children to show (default and at most 25)")
    p.add_argument("--depth", type=int, help="levels to expand inline (default 1, at most 3)")
    p = add("print", _call("debug_evaluate", lambda o: _some(expression=" ".join(o.expr), format=o.format)),
            "evaluate a C expression", ("p",))
    p.add_argument("expr", nargs="+")
    p.add_argument("--format", "-f", choices=("x", "d", "o", "t", "c", "u", "a", "z"))
    p = add("set", _call("debug_set", lambda o: {"target": o.target, "value": " ".join(o.value)}),
            "set VAR VALUE")
    p.add_argument("target")
    p.add_argument("value", nargs="+")
    add("threads", _call("debug_threads"), "the threads")
    add("thread", _call("debug_select", lambda o: {"thread": o.n}), "select thread N").add_argument("n", type=int)
    p = add("memory", _call("debug_memory", lambda o: _memory(o)), "memory read ADDR [--count N] | write ADDR HEX")
    p.add_argument("action", choices=("read", "write"))
    p.add_argument("address")
    p.add_argument("data", nargs="*", help="write: hex bytes")
    p.add_argument("--count", type=int, help="bytes to read (default 64)")
    p = add("registers", _call("debug_registers", lambda o: _some(names=o.names, vector=o.vector)),
            "registers [NAMES]")
    p.add_argument("names", nargs="*")
    p.add_argument("--vector", action="store_true", help="with x87/SSE/AVX")
    p = add("gcore", _call("debug_gcore", lambda o: _some(path=o.file, directory=os.getcwd())),
            "save a core file of the stopped program (default core.PID)", ("generate-core-file",))
    p.add_argument("file", nargs="?")
    p = add("disassemble", _call("debug_disassemble", lambda o: _some(
        location=o.location, count=o.count, source=o.source)), "instructions", ("disas",))  # fmt: skip
    p.add_argument("location", nargs="?")
    p.add_argument("--count", type=int)
    p.add_argument("--source", action="store_true", help="with the source lines")
    p = add("catch", _catch, "catch signal NAME | throw | catch | panic | exec | fork [--off]")
    p.add_argument("kind", choices=_CATCH_KINDS)
    p.add_argument("signal", nargs="?")
    p.add_argument("--off", action="store_true", help="stop catching it")
    p = add("output", lambda o: Plan("output"), "program output (and events) since the last look")
    p.add_argument("--tail", type=int, metavar="N", help="the last N lines instead")
    p.add_argument("--follow", "-f", action="store_true", help="keep printing until it exits (Ctrl-C)")
    p.add_argument("--clear", action="store_true", help="drop what is buffered")
    p.add_argument("--events", action="store_true", help="also stops, exits, threads")
    p = add("raw", _call("debug_console", lambda o: {"command": " ".join(o.line)}),
            "a gdb-style console command (bt, info locals, p/x EXPR, x/8xb ADDR)")
    p.add_argument("line", nargs=argparse.REMAINDER)
    p = add("trace", _trace, "trace add PATTERN... | remove [PATTERN...] | status")
    p.add_argument("action", choices=("add", "remove", "status"))
    p.add_argument("patterns", nargs="*")
    p.add_argument("--keep", action="store_true", help="keep the trace file after the session")
    p.add_argument("--ring-memory", type=int, metavar="MIB", help="memory for records not yet stored (256)")
    p = add("query", _query, "query the trace")
    p.add_argument("--kind", action="append", choices=("call", "return", "stdout", "stderr", "crash", "exit"))
    p.add_argument("--function")
    p.add_argument("--contains", help="the function name contains this")
    p.add_argument("--regex", help="the function name matches this regex")
    p.add_argument("--file", help="the source path ends with this")
    p.add_argument("--returned", help="returns of this value")
    p.add_argument("--void", action="store_const", const=True, help="returns without a value")
    p.add_argument("--non-void", dest="void", action="store_const", const=False, help="returns with one")
    p.add_argument("--thread", type=int)
    p.add_argument("--since", type=float, metavar="MS")
    p.add_argument("--until", type=float, metavar="MS")
    p.add_argument("--min-duration", type=float, metavar="MS")
    p.add_argument("--limit", type=int)
    p.add_argument("--offset", type=int)
    return parser


def _levels(direction: str) -> Callable[[argparse.Namespace], dict[str, Any]]:
    return lambda o: {direction: o.n}


def _memory(o: argparse.Namespace) -> dict[str, Any]:
    if o.action == "write":
        if not o.data:
            raise UsageError("memory write ADDR HEX (e.g. 2a 00 00 00)")
        return {"address": o.address, "write": " ".join(o.data)}
    return _some(address=o.address, size=o.count)


def plan_for(options: argparse.Namespace) -> Plan:
    plan: Callable[[argparse.Namespace], Plan] = options.plan
    result = plan(options)
    if result.op == "call" and options.session:
        result.arguments["session"] = options.session
    return result
