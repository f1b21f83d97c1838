"""Call tracing in FakeDebugger: every function of the simulated program can be traced;
a call reports no arguments (the fake has none) and returns what is in rax."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from aliceserver.debuggers import model as m
from aliceserver.debuggers.base import CallEntryHook, CallExitHook
from aliceserver.errors import TargetError


@dataclass(slots=True)
class _FakeHit:
    thread_id: int
    cfa: int
    rax: int = 0

    def arguments(self) -> list[tuple[str, str]]:
        return []

    def return_value(self) -> str | None:
        return str(self.rax)


@dataclass(slots=True)
class _FakeTrace:
    function: m.FunctionSymbol
    on_entry: CallEntryHook
    on_exit: CallExitHook
    open_calls: set[tuple[int, int]] = field(default_factory=set)  # (thread, CFA)


class FakeCallTracing:
    _fake_traces: dict[int, _FakeTrace]  # set up by FakeDebugger
    _next_trace: int

    def _function_symbols(self) -> list[m.FunctionSymbol]:
        raise NotImplementedError  # provided by FakeDebugger

    def functions(self, named: Callable[[str], bool] | None = None) -> list[m.FunctionSymbol]:
        return [f for f in self._function_symbols() if named is None or named(f.name)]

    def trace_calls(
        self, function: m.FunctionSymbol, on_entry: CallEntryHook, on_exit: CallExitHook, *, depth: int = 1
    ) -> int:
        if function not in self._function_symbols():
            raise TargetError(f"no function {function.name} at {function.address:#x}")
        self._next_trace += 1
        self._fake_traces[self._next_trace] = _FakeTrace(function, on_entry, on_exit)
        return self._next_trace

    def untrace_calls(self, trace_id: int) -> None:
        if self._fake_traces.pop(trace_id, None) is None:
            raise TargetError(f"no call trace number {trace_id}")

    def _traced_entry(self, tid: int, address: int, cfa: int) -> None:
        """The simulated program calls the function at `address`; its frame is `cfa`."""
        for trace in list(self._fake_traces.values()):
            if trace.function.address == address and trace.on_entry(_FakeHit(tid, cfa)):
                trace.open_calls.add((tid, cfa))

    def _traced_return(self, tid: int, cfa: int, rax: int) -> None:
        for trace in list(self._fake_traces.values()):
            if (tid, cfa) in trace.open_calls:
                trace.open_calls.discard((tid, cfa))
                trace.on_exit(_FakeHit(tid, cfa, rax))
