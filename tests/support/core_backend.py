"""The core backend of the source-level tests (as Delve runs proc_test.go over native and core):
a debugger for tests that drives a live PtraceDebugger for execution and answers every
read-only query at a stop from a second engine that opened a core of that stop.

At the first read-only query after a stop, the live engine writes a core of the process
(gdb's gcore) into the test's directory, and the core engine opens it; the thread ids of the
core are the live ones. Whatever changes or needs the process (execution, writes, `set var`,
calls into the program) goes to the live engine, and the core is written again after it.
Settings (print limits, call options...) go to both engines.

conftest.py runs each test of a module marked both_backends that uses `debugger` (or asks
for `backend`, as the console tests do with core_of_stop) once per backend; live_only and
core_xfail markers say, with their reason, what cannot hold or does not yet over a core.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any, Callable

import pytest

BACKENDS = ("live", "core")
BACKEND_MARKERS = (
    "both_backends: each test of the module that uses `debugger` (or `backend`) runs over the "
    "live and the core backend (tests/support/core_backend.py)",
    "live_only(reason): in a both_backends module, a test that cannot hold on a core (it "
    "runs the program's code, asserts on what only a live process has...)",
    "core_xfail(reason, params=()): over the core backend, a known difference of the source "
    "level (strict xfail; `params`: only the parametrizations whose id holds one of them)",
)
# Known differences of the source level over a core (core_xfail reasons)
INLINE_HIDDEN_BY_A_LIVE_STEP = (
    "the test's oracle is gdb's live stop: a `next`/`step` that ends at an inlined call's first "
    "instruction hides it (gdb's skip_inline_frames runs at live stops only); gdb on the core "
    "of that stop hides none and shows the inlined call as frame 0, as the core backend does "
    "(tests/integration/test_core_inline.py)"
)

# Answered by the core engine at a stop: what a stopped program holds, and symbol queries.
READ_ONLY = frozenset({
    "threads", "backtrace", "stack_trace", "frame_details", "frame_registers", "frame_variables",
    "describe_type", "printed_type_name", "vtables", "read_registers",
    "read_vector_registers", "read_memory", "disassemble", "lookup_address", "section_symbol",
    "lookup_symbol", "modules", "functions", "source_position", "source_files", "source_name",
    "line_range", "line_start", "line_table", "compile_unit",
    "module_source_files", "search_symbols", "static_probes", "symbol_storage", "scope_storage",
    "has_debug_info", "symbols_loaded", "history_count", "convenience_names", "resolve_location",
})  # fmt: skip
# Settings of the session: both engines follow them.
SETTINGS = frozenset({
    "set_print_limits", "set_call_options", "set_scheduler_locking", "set_backtrace_past_main", "set_examined",
    "unload_library_symbols", "load_library_symbols",
})  # fmt: skip
# Live-engine calls that leave the program as it was (no new core needed after them).
KEEPS_STATE = frozenset({
    "subscribe", "process", "is_running", "signal_policy", "set_signal_policy", "set_catchpoint",
    "insert_breakpoint", "remove_breakpoint", "enable_breakpoint", "breakpoints",
    "insert_location_breakpoint", "remove_location_breakpoint", "location_breakpoints",
    "enable_location_breakpoint",
    "insert_watchpoint", "remove_watchpoint", "watchpoints", "expression_condition",
    "breakpoint_condition", "condition_problem", "watch_expression", "watch_scope",
    "write_core", "source_paths", "auto_load", "trace_calls", "untrace_calls",
    "batch",  # its calls are routed each on its own
})  # fmt: skip

# Variable references the live engine handed out (a call's or a write's value), told from
# the core engine's by this offset while the core is reopened meanwhile.
LIVE_REFERENCES = 1 << 40

# What an expression may change or need the process for: an assignment (`=`, `+=`...,
# not `==`, `!=`, `<=`, `>=`), `++`/`--`, or a call of the program's functions (a name or
# member followed by `(`; not sizeof and its kin, not a cast, not a `$_function` of gdb's).
_ASSIGNS = re.compile(r"(?<![=!<>])=(?!=)|\+\+|--")
_CALLS = re.compile(r"(?<![\w$])(?!(?:sizeof|alignof|_Alignof|typeof|decltype)\b)[A-Za-z_]\w*\s*\(")


def parametrize_backends(metafunc: pytest.Metafunc) -> None:
    """The `backend` of `debugger`: both for the modules marked both_backends, live alone
    (unparametrized) for their tests marked live_only, which must say why."""
    definition = metafunc.definition
    uses = "debugger" in metafunc.fixturenames or "backend" in metafunc.fixturenames
    if not uses or definition.get_closest_marker("both_backends") is None:
        return
    live_only = definition.get_closest_marker("live_only")
    if live_only is None:
        metafunc.parametrize("backend", BACKENDS, indirect=True)
    elif not live_only.kwargs.get("reason"):
        raise pytest.UsageError(f"{definition.nodeid}: live_only needs a reason=")


def mark_core_xfails(items: list[pytest.Item]) -> None:
    """A core_xfail test over the core backend becomes a strict xfail (all its
    parametrizations, or those whose id holds one of the marker's `params`)."""
    for item in items:
        marker = item.get_closest_marker("core_xfail")
        callspec = getattr(item, "callspec", None)
        if marker is None or callspec is None or callspec.params.get("backend") != "core":
            continue
        params = marker.kwargs.get("params", ())
        if not params or any(param in callspec.id for param in params):
            item.add_marker(pytest.mark.xfail(strict=True, reason=marker.kwargs["reason"]))


CALL_PASSED = pytest.StashKey[bool]()


def core_of_stop(backend: str, where: Path) -> Path | None:
    """For a test that runs a front end at a stop (mi_console.console_at): where it writes
    its core of the stop over the core backend, None over the live one."""
    return where / "core.stop" if backend == "core" else None


def note_outcome(item: pytest.Item, report: pytest.TestReport) -> None:
    """Whether the test's body passed: only then must a core run have read at a stop (a
    test that skipped or failed before its first read says nothing of the backend)."""
    if report.when == "call":
        item.stash[CALL_PASSED] = report.passed


def has_side_effects(expression: str) -> bool:
    """Whether `expression` writes to the program or runs its code (string literals aside)."""
    code = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', expression)
    return bool(_ASSIGNS.search(code) or _CALLS.search(code))


class CoreBackedDebugger:
    """A live engine for execution, a core engine for what a stop holds (see the module).
    `make_engine` builds the core engine (a PtraceDebugger); `cores` is where the cores go."""

    def __init__(self, live: Any, make_engine: Callable[[], Any], cores: Path) -> None:
        self.live = live
        self._make_engine = make_engine
        self._cores = cores
        self._core_engine: Any = None
        self._core_path: Path | None = None
        self._stale = True
        self._settings: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.cores_written = 0

    # -- routing ------------------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.live, name)
        if name.startswith("_") or not callable(value):
            return value
        if name in READ_ONLY:
            return self._read_only(name)
        if name in SETTINGS:
            return self._setting(name)
        if name in KEEPS_STATE:
            return value
        return self._changes_process(value)

    def evaluate(self, expression: str, thread_id: int | None = None, level: int = 0,
                 fmt: str | None = None, **options: Any) -> Any:  # fmt: skip
        """The core answers unless the expression writes or calls the program's code."""
        if has_side_effects(expression) and not options.get("type_only", False):
            self._stale = True
            return _live_reference(self.live.evaluate(expression, thread_id, level, fmt, **options))
        reader = self._reader()
        answer = reader.evaluate(expression, thread_id, level, fmt, **options)
        if options.get("record") and reader is not self.live:
            # the live engine's value history in step, for `$N` in a later call or write
            self.live.evaluate(expression, thread_id, level, fmt, **options)
        return answer

    def variable_children(self, reference: int, *args: Any, **kwargs: Any) -> Any:
        """Of a value the live engine gave (see LIVE_REFERENCES) there, else of the core's."""
        if reference >= LIVE_REFERENCES:
            children = self.live.variable_children(reference - LIVE_REFERENCES, *args, **kwargs)
            return [_live_reference(child) for child in children]
        return self._reader().variable_children(reference, *args, **kwargs)

    def close(self) -> None:
        try:
            self._close_core()
        finally:
            self.live.close()

    # -- the core of the current stop ----------------------------------------------------

    def _read_only(self, name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            return getattr(self._reader(), name)(*args, **kwargs)

        return call

    def _setting(self, name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            result = getattr(self.live, name)(*args, **kwargs)
            self._settings.append((name, args, kwargs))
            if self._core_engine is not None and not self._stale:
                getattr(self._core_engine, name)(*args, **kwargs)
            return result

        return call

    def _changes_process(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            self._stale = True
            return method(*args, **kwargs)

        return call

    def _reader(self) -> Any:
        """The engine that answers a read-only query now: the core engine at a stop (a new
        core written if the program ran or changed since the last one), else the live one
        (no process yet or any more, or it runs)."""
        if self.live.process is None or self.live.is_running():
            return self.live
        if self._stale or self._core_engine is None:
            self._open_core()
        return self._core_engine

    def _open_core(self) -> None:
        self.cores_written += 1
        path = self._cores / f"core.{self.cores_written}"
        self.live.write_core(str(path))
        # the program as the live engine has it now (after an exec, the new image's)
        program = next((m.path for m in self.live.modules() if m.is_main), None)
        if self._core_engine is None:
            self._core_engine = self._make_engine()
        self._core_engine.open_core(str(path), program)
        for name, args, kwargs in self._settings:  # a core opened anew reads every library
            getattr(self._core_engine, name)(*args, **kwargs)
        if self._core_path is not None:
            self._core_path.unlink(missing_ok=True)  # one core on disk at a time
        self._core_path = path
        self._stale = False

    def _close_core(self) -> None:
        engine, self._core_engine = self._core_engine, None
        if engine is not None:
            engine.close()
        if self._core_path is not None:
            self._core_path.unlink(missing_ok=True)


def _live_reference(info: Any) -> Any:
    """`info` (a VariableInfo of the live engine) with its reference told from the core's."""
    if not info.reference:
        return info
    return dataclasses.replace(info, reference=info.reference + LIVE_REFERENCES)
