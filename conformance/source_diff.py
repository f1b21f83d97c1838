"""Run one source-level scenario under gdb and under the ptrace engine; list the differences.

A scenario is a program from tests/programs, one breakpoint location, and a list of actions
after the first stop (`continue`, `next`, `step`, `finish`, `watch EXPR`). At every stop both sides record
the stop position, the backtrace (function and line of each frame, up to `main`) and the
values of the frame's arguments and locals; `diff` compares the two records.

    python -m conformance.source_diff            # every scenario, a summary table
    python -m conformance.source_diff -v         # ... and each difference
    python -m conformance.source_diff basic-deep # only the named scenarios
    python -m conformance.source_diff --remote   # each side over its own gdbserver
    python -m conformance.source_diff --patched  # breakpoints behind jump patches

What counts as "the same" (see README.md): both sides show inlined calls as extra frames,
and gdb also reconstructs tail calls from call-site DWARF. So both sides' frames are grouped
by physical frame (inline frames belong to the next real frame; tail-call frames are
dropped) and an engine group agrees with gdb's when their function names and lines meet.
Paths compare by basename.
"""

from __future__ import annotations

import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from aliceserver.debuggers.events import Exited, Stopped
from aliceserver.debuggers.model import (
    LaunchConfig,
    SignalPolicy,
    StdioMode,
    StepKind,
    VariableScope,
    WatchKind,
)
from conformance.explained import SOURCE_KNOWN_BUGS, explained_by, unexplained
from conformance.source_frames import (
    FrameRecord,
    _base,
    cut_at_main,
    engine_groups,
    frame_agrees,
    gdb_groups,
)
from conformance.source_frames import normalize_function as normalize_function  # (importers)
from tests.support.build import Builder, find_compiler, marker_line
from tests.support.build_more import MoreBuilder, find_cxx, find_rustc
from tests.support.events import EventLog
from tests.support.gdb import (
    GdbReply,
    frames,
    gdb_env,
    gdb_path,
    name_values,
    run_gdb,
)

ACTIONS = ("continue", "next", "step", "finish", "watch EXPR")


class EngineProbe(Protocol):
    """What a mode of the runner does on the engine's side (source_patched.py's patches)."""

    def insert(self, dbg: Any, address: int) -> None: ...
    def resumed(self, dbg: Any, action: str) -> None: ...
    def stopped(self, dbg: Any, stop: Stopped) -> None: ...
STOP_TIMEOUT = 20.0


@dataclass(frozen=True)
class Scenario:
    name: str
    program: str  # stem of a file in tests/programs
    language: str  # "c", "c++" or "rust" (the file's suffix follows from it)
    location: str  # "@marker" (file:line of a marked line) or any spec both sides accept
    actions: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()  # compiler flags replacing the language's defaults
    args: tuple[str, ...] = ()
    compare_values: bool = True
    quiet_signals: tuple[int, ...] = ()  # signals passed to the program without a stop
    # Locals read before they are assigned: stack left-overs of the loader and libc start-up,
    # which differ with the launch environment and the CPU; compared by presence only.
    unassigned: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()  # C programs built as shared libraries the program links

    @property
    def suffix(self) -> str:
        return {"c": ".c", "c++": ".cpp", "rust": ".rs"}[self.language]


@dataclass(frozen=True)
class StopRecord:
    function: str | None
    position: tuple[str, int] | None
    frames: tuple[FrameRecord, ...]
    arguments: tuple[tuple[str, str], ...]
    locals: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Difference:
    scenario: str
    stop: int  # 0: the breakpoint stop, n: after the n-th action
    aspect: str  # "stops", "position", "frames", "arguments", "locals"
    gdb: str
    engine: str

    def __str__(self) -> str:
        return f"{self.scenario} stop {self.stop} {self.aspect}: gdb {self.gdb!r} engine {self.engine!r}"

    # What conformance/explained.py's entries match on (subject: the scenario, path: the stop)
    @property
    def kind(self) -> str:
        return self.aspect

    @property
    def ours(self) -> str:
        return self.engine

    @property
    def opt(self) -> str:
        return ""

    @property
    def subject(self) -> str:
        return self.scenario

    @property
    def path(self) -> str:
        return f"stop {self.stop}"


@dataclass
class Outcome:
    scenario: Scenario
    gdb: list[StopRecord] = field(default_factory=list)
    engine: list[StopRecord] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)  # those not explained
    agreements: int = 0
    seconds: float = 0.0
    explained: list[Difference] = field(default_factory=list)  # by SOURCE_KNOWN_BUGS


def location_spec(scenario: Scenario, programs_dir: Path) -> str:
    if scenario.location.startswith("@"):
        source = programs_dir / f"{scenario.program}{scenario.suffix}"
        return f"{source.name}:{marker_line(source, scenario.location[1:])}"
    return scenario.location


# --- gdb side -----------------------------------------------------------------------------

_QUERIES = ("@frames", "info args", "info locals")


def break_command(spec: str, condition: str | None = None) -> str:
    return f"break {spec}" + (f" if {condition}" if condition else "")


def gdb_commands(
    scenario: Scenario, spec: str, target: str | None = None, condition: str | None = None
) -> list[str]:
    """gdb's commands; with `target` (a gdbserver's HOST:PORT) it connects and continues
    the program the stub started instead of running it; `condition`: the breakpoint's."""
    commands = [f"target remote {target}"] if target else []
    commands += [
        f"handle {signal.Signals(sig).name} nostop noprint pass" for sig in scenario.quiet_signals
    ]
    go = "continue" if target else "run " + " ".join(scenario.args)
    commands += [break_command(spec, condition), go, *_QUERIES]
    for action in scenario.actions:
        commands += [action, *_QUERIES]
    return commands


def gdb_stops(
    scenario: Scenario, program: Path, spec: str, env: dict[str, str], target: str | None = None,
    condition: str | None = None,
) -> list[StopRecord]:
    commands = gdb_commands(scenario, spec, target, condition)
    # Over a stub both sides read the libraries from this machine (no "Reading ... from remote").
    options = ("-iex", "set sysroot /") if target else ()
    replies = run_gdb(program, commands, env=env, options=options)
    first = commands.index(break_command(spec, condition)) + 1  # the `run` (or `continue`)
    stops: list[StopRecord] = []
    for step in range(len(scenario.actions) + 1):
        at = first + step * (1 + len(_QUERIES))
        go, frame_reply, args_reply, locals_reply = replies[at : at + 4]
        if go.where is None:
            break  # the program exited
        stops.append(_gdb_stop(go, frame_reply, args_reply, locals_reply))
    return stops


def _gdb_stop(go: GdbReply, frame_reply: GdbReply, args: GdbReply, locals_: GdbReply) -> StopRecord:
    assert go.where is not None
    file = _base(go.where.file)
    return StopRecord(
        function=go.where.function,
        position=(file, go.where.line) if file and go.where.line else None,
        frames=tuple(gdb_groups(frames(frame_reply))),
        arguments=tuple(name_values(args)) if args.error is None else (),
        locals=tuple(name_values(locals_)) if locals_.error is None else (),
    )


# --- engine side --------------------------------------------------------------------------


def _new_engine() -> Any:
    from aliceserver.debuggers.ptrace.engine import PtraceDebugger

    return PtraceDebugger()


def engine_stops(
    scenario: Scenario,
    program: Path,
    spec: str,
    env: dict[str, str],
    engine: Any | None = None,
    start: Callable[[Any], object] | None = None,
    probe: EngineProbe | None = None,
) -> list[StopRecord]:
    """The stops of `scenario` under the engine (`engine`: a fresh PtraceDebugger to use;
    `start`: how it gets the program, when not by launching it, such as connect_remote;
    `probe`: how the breakpoints go in, and what is looked at after each resume and stop)."""
    dbg = engine if engine is not None else _new_engine()
    log = EventLog(dbg)
    stops: list[StopRecord] = []
    try:
        if start is not None:
            start(dbg)
        else:
            dbg.launch(
                LaunchConfig(program=str(program), args=scenario.args, env=env, stdio=StdioMode.PIPES)
            )
        for sig in scenario.quiet_signals:
            dbg.set_signal_policy(sig, SignalPolicy(stop=False, pass_to_program=True, print_=False))
        locations = dbg.resolve_location(spec)
        if not locations:
            raise LookupError(f"the engine resolved {spec!r} to nothing")
        for location in locations:
            if probe is None:
                dbg.insert_breakpoint(location.address)
            else:
                probe.insert(dbg, location.address)
        dbg.resume()
        stop = _next_stop(log)
        for step in range(len(scenario.actions) + 1):
            if stop is None:
                break
            stops.append(_engine_stop(dbg, stop, scenario.compare_values))
            if probe is not None:
                probe.stopped(dbg, stop)
            if step == len(scenario.actions):
                break
            action = scenario.actions[step]
            if action.startswith("watch "):  # sets a watchpoint: the same stop again
                dbg.watch_expression(action[len("watch ") :], WatchKind.WRITE, stop.thread_id, 0)
                continue
            if action == "continue":
                dbg.resume()
            else:
                kind = {"next": StepKind.OVER, "step": StepKind.INTO, "finish": StepKind.OUT}[
                    action
                ]
                dbg.step(stop.thread_id, kind)
            if probe is not None:
                probe.resumed(dbg, action)
            stop = _next_stop(log)
    finally:
        if engine is None:
            dbg.close()
    return stops


def _next_stop(log: EventLog) -> Stopped | None:
    """The next Stopped, or None when the program exits first."""
    event = log.wait_for(
        object, timeout=STOP_TIMEOUT, predicate=lambda e: isinstance(e, (Stopped, Exited))
    )
    return event if isinstance(event, Stopped) else None


def _engine_stop(dbg: Any, stop: Stopped, values: bool) -> StopRecord:
    trace = dbg.stack_trace(stop.thread_id)
    top = trace[0] if trace else None
    file = _base(top.source.path) if top is not None and top.source else None
    arguments: tuple[tuple[str, str], ...] = ()
    local_values: tuple[tuple[str, str], ...] = ()
    if values:
        arguments = tuple(
            (v.name, v.value)
            for v in dbg.frame_variables(stop.thread_id, 0, VariableScope.ARGUMENTS)
        )
        local_values = tuple(
            (v.name, v.value) for v in dbg.frame_variables(stop.thread_id, 0, VariableScope.LOCALS)
        )
    return StopRecord(
        function=top.function if top is not None else None,
        position=(file, top.source.line) if top is not None and top.source and file else None,
        frames=tuple(engine_groups(trace)),
        arguments=arguments,
        locals=local_values,
    )


# --- comparison ---------------------------------------------------------------------------


def compare(scenario: Scenario, gdb: Sequence[StopRecord], engine: Sequence[StopRecord]) -> Outcome:
    outcome = Outcome(scenario, list(gdb), list(engine))
    out = outcome.differences

    def check(stop: int, aspect: str, same: bool, gdb_text: str, engine_text: str) -> None:
        if same:
            outcome.agreements += 1
        else:
            out.append(Difference(scenario.name, stop, aspect, gdb_text, engine_text))

    check(-1, "stops", len(gdb) == len(engine), str(len(gdb)), str(len(engine)))
    for index, (g, e) in enumerate(zip(gdb, engine, strict=False)):
        check(index, "position", g.position == e.position, str(g.position), str(e.position))
        engine_frames = cut_at_main(e.frames, g.frames[-1] if g.frames else None)
        same = len(engine_frames) == len(g.frames) and all(
            frame_agrees(a, b) for a, b in zip(g.frames, engine_frames, strict=False)
        )
        check(
            index,
            "frames",
            same,
            " / ".join(f.describe() for f in g.frames),
            " / ".join(f.describe() for f in engine_frames),
        )
        if scenario.compare_values:
            check(
                index, "arguments", g.arguments == e.arguments, str(g.arguments), str(e.arguments)
            )
            gdb_locals = _masked(g.locals, scenario.unassigned)
            engine_locals = _masked(e.locals, scenario.unassigned)
            check(index, "locals", gdb_locals == engine_locals, str(g.locals), str(e.locals))
    return outcome


def _masked(pairs: tuple[tuple[str, str], ...], names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return tuple((name, "<unassigned>" if name in names else value) for name, value in pairs)


@dataclass
class Builders:
    c: Builder | None
    more: MoreBuilder

    @classmethod
    def in_dir(cls, cache: Path) -> "Builders":
        compiler = find_compiler()
        return cls(Builder(cache, compiler) if compiler else None, MoreBuilder(cache))

    def available(self, scenario: Scenario) -> str | None:
        """Why `scenario` cannot run here (None: it can)."""
        if gdb_path() is None:
            return "gdb not found"
        tool = {"c": self.c is not None, "c++": find_cxx(), "rust": find_rustc()}[scenario.language]
        return None if tool else f"no compiler for {scenario.language}"

    def build(self, scenario: Scenario) -> Path:
        if scenario.libraries:
            assert self.c is not None and scenario.language == "c"
            libraries = [self.c.build(name, extra=["-shared", "-fPIC"]) for name in scenario.libraries]
            # --no-as-needed: linked by path, so the loader finds each without a search path
            return self.c.build(scenario.program, extra=["-Wl,--no-as-needed", *map(str, libraries)])
        if scenario.language == "c":
            assert self.c is not None
            if scenario.flags:
                return self.c.build(scenario.program, flags=scenario.flags)
            return self.c.build(scenario.program)
        if scenario.language == "c++":
            if scenario.flags:
                return self.more.build_cpp(scenario.program, scenario.flags)
            return self.more.build_cpp(scenario.program)
        if scenario.flags:
            return self.more.build_rust(scenario.program, scenario.flags)
        return self.more.build_rust(scenario.program)


def diff(
    scenario: Scenario, builders: Builders, engine: Any | None = None, remote: bool = False
) -> Outcome:
    """Run `scenario` under both debuggers and compare (`engine`: a PtraceDebugger to use;
    `remote`: each side debugs the program through a gdbserver of its own)."""
    started = time.monotonic()
    program = builders.build(scenario)
    programs_dir = builders.more.programs_dir
    spec = location_spec(scenario, programs_dir)
    env = gdb_env()
    if remote:
        from conformance.source_remote import remote_stops

        gdb, ours = remote_stops(scenario, program, spec, env, engine)
    else:
        gdb = gdb_stops(scenario, program, spec, env)
        ours = engine_stops(scenario, program, spec, env, engine)
    outcome = compare(scenario, gdb, ours)
    outcome.explained = explained_by(outcome.differences, SOURCE_KNOWN_BUGS)
    outcome.differences = unexplained(outcome.differences, SOURCE_KNOWN_BUGS)
    outcome.seconds = time.monotonic() - started
    return outcome


SIGUSR1 = 10

SCENARIOS: tuple[Scenario, ...] = (
    Scenario("basic-deep", "src_basic", "c", "@leaf", ("next", "finish", "next")),
    Scenario("basic-recursion", "src_basic", "c", "@fact_base", ("finish", "next", "finish"),
             unassigned=("below",)),  # fmt: skip
    Scenario("basic-into", "src_basic", "c", "@call_top", ("step", "step", "step", "next")),
    Scenario("basic-loop", "src_basic", "c", "loop_sum", ("next",) * 12),
    Scenario("basic-values", "src_basic", "c", "@vars", ("finish", "next")),
    Scenario("basic-qsort", "src_basic", "c", "@compare", ("continue",), compare_values=False),
    Scenario("basic-signal", "src_basic", "c", "@handler", ("next",), quiet_signals=(SIGUSR1,)),
    Scenario("opt-O2", "src_opt", "c", "@opt_after", (), flags=("-g", "-O2"), compare_values=False),
    # gdb lists a variable dropped from an inlined copy twice (copy and abstract origin): no values.
    Scenario("inline-O2", "src_inline", "c", "clamp", ("finish", "next", "continue", "step", "step"),
             flags=("-g", "-O2"), compare_values=False),  # fmt: skip
    Scenario("cpp-method", "src_cpp", "c++", "ns::Counter::add", ("next", "finish")),
    Scenario("cpp-overloads", "src_cpp", "c++", "ns::over", ("continue", "finish")),
    Scenario("cpp-template", "src_cpp", "c++", "@twice", ("next", "continue", "next")),
    Scenario("cpp-reference", "src_cpp", "c++", "ns::bump", ("next", "finish")),
    Scenario("rust-path", "src_rust", "rust", "src_rust::module::function", ("next", "continue")),
    # Lines split in several address blocks (src_lines.c): a for loop's test after its body,
    # a while loop's test (no discriminator: gdb goes on at a block of the same line), `?:`
    # arms, a statement over several lines; at -O2, a `next` from main's entry (before its
    # stack adjustment) and rows that are not statements.
    Scenario("lines-for", "src_lines", "c", "for_loop", ("next",) * 9),
    Scenario("lines-while", "src_lines", "c", "while_loop", ("next",) * 9),
    Scenario("lines-ternary", "src_lines", "c", "@ternary", ("step",) * 6 + ("next",) * 4),
    Scenario("lines-spread", "src_lines", "c", "@spread", ("step",) * 10 + ("next",) * 2),
    Scenario("lines-O2", "src_lines", "c", "main", ("next", "step", "step", "next") * 6,
             flags=("-g", "-O2"), compare_values=False),  # fmt: skip
    # `next` returns into a caller without line info (gdb stops there), then out of it.
    Scenario("lines-no-line-caller", "src_lines", "c", "@callback", ("next",) * 3),
    Scenario("lines-no-line-caller-O2", "src_lines", "c", "@callback", ("next",) * 3,
             flags=("-g", "-O2"), compare_values=False),  # fmt: skip
    # -O1: rows that are not statements (the line being stepped stays the current one),
    # and the pushes and pops around factorial's recursion (no call, no return).
    Scenario("basic-O1-next", "src_basic", "c", "main", ("next",) * 26, flags=("-g", "-O1"),
             compare_values=False),  # fmt: skip
    Scenario("basic-O1-step", "src_basic", "c", "@call_top", ("step",) * 30, flags=("-g", "-O1"),
             compare_values=False),  # fmt: skip
    # -O2: a step into twice() stops at the call site of the inlined call its code begins
    # with; a row of line 24 inside twice() is followed by one in the inlined scale().
    Scenario("inline-O2-steps", "src_inline", "c", "main", ("step",) * 14,
             flags=("-g", "-O2"), compare_values=False),  # fmt: skip
    # A second thread's breakpoint while main sleeps; a finish and a next on that thread.
    Scenario("threads-worker", "src_threads", "c", "worker_hit", ("finish", "next", "continue")),
    # A hardware watchpoint on a global: each write stops after the writing statement.
    Scenario("watch-global", "watch", "c", "@counter",
             ("watch global_counter", "continue", "continue", "next")),  # fmt: skip
    # A watchpoint on a local: its writes, then the stop in the caller when its frame is left.
    Scenario("watch-local", "watch_scope", "c", "@compute", ("watch acc",) + ("continue",) * 6),
    # SIGUSR1 stops the program (gdb's default) before its handler runs.
    Scenario("basic-signal-stop", "src_basic", "c", "@handler", ("continue", "next")),
    # A step through the PLT into a shared library of the program's own, and out of it.
    Scenario("solib-step", "solib_main", "c", "@first",
             ("step", "next", "finish", "step", "step", "finish"), libraries=("lib_solib",)),  # fmt: skip
    # libstdc++'s printers (vector and string arguments) and a finish back into main.
    Scenario("cpp-printers", "cpp_printers", "c++", "show", ("next", "finish"),
             flags=("-g", "-O0", "-fno-omit-frame-pointer", "-std=c++20")),  # fmt: skip
    # Breakpoints hit again and again, each action after a later hit (with --patched: stops
    # presented from a trampoline, and resumes through its displaced copy of the site).
    Scenario("again-qsort", "src_basic", "c", "@compare",
             ("continue", "next", "continue", "step", "continue", "finish", "continue")),  # fmt: skip
    # Stop 4 is SIGUSR1 in pthread_kill, whose old_mask is set only when another thread is
    # signalled: stack left-overs (a trampoline's, with --patched).
    Scenario("again-recursion", "src_basic", "c", "@fact_rec",
             ("continue", "continue", "next", "continue", "finish", "finish"),
             unassigned=("old_mask",)),  # fmt: skip
    Scenario("again-watch", "watch", "c", "@counter",
             ("continue", "watch global_counter", "continue", "continue", "continue", "next")),  # fmt: skip
    # A site whose first instruction adds to a local (-O0) or to a global RIP-relative
    # (-O2): run twice by a resume, the values at the next stop differ.
    Scenario("again-rmw", "patched_resume", "c", "@total",
             ("continue", "continue", "next", "step", "finish", "continue", "continue")),  # fmt: skip
    Scenario("again-rmw-O2", "patched_resume", "c", "tick",
             ("continue", "finish", "continue", "watch ticks", "continue", "continue", "continue"),
             flags=("-g", "-O2")),  # fmt: skip
    # A site whose first instruction faults at the third call: the SIGSEGV stop at it.
    Scenario("again-fault-O2", "patched_fault", "c", "store", ("continue",) * 3, flags=("-g", "-O2")),
)


def by_name(names: Sequence[str]) -> list[Scenario]:
    known = {s.name: s for s in SCENARIOS}
    missing = [n for n in names if n not in known]
    if missing:
        raise KeyError(f"unknown scenarios: {', '.join(missing)}")
    return [known[n] for n in names]


def main(argv: Sequence[str] | None = None) -> int:
    from conformance.source_cli import main as run  # the table and the modes

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
