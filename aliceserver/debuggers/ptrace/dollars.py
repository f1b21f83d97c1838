"""The engine's side of gdb's `$` values: one store of the value history and convenience
variables for the debugging session (expr/dollars.py), its numbers of threads for
`$_thread`, and what sets built-in variables (`$_exitcode` at the exit, `$_` after `x`)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Callable, TypeVar

from aliceserver.debuggers.model import VariableInfo
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.symbols.dwarf.expr.dollars import SessionValues
    from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value

T = TypeVar("T")


class SessionDollars:
    """Mixed into PtraceDebugger. The store is made when first used: the evaluator's
    modules are imported only then (see variables.py)."""

    _inferior: Inferior | None
    _dollar_store: SessionValues | None = None
    _thread_numbers: dict[int, int] | None = None  # tid -> gdb's number, this process's
    _numbered_pid: int = 0

    if TYPE_CHECKING:  # provided by the class this is mixed into
        def _call(self, fn: Callable[[], T]) -> T:
            raise NotImplementedError

    def _session_values(self, thread_id: int | None = None) -> SessionValues:
        if self._dollar_store is None:
            from aliceserver.debuggers.symbols.dwarf.expr.dollars import SessionValues

            self._dollar_store = SessionValues()
        store = self._dollar_store
        store.thread_number = self._thread_number(thread_id)
        inferior = self._inferior
        if store.thread_number and inferior is not None and thread_id is not None:
            store.siginfo = partial(_read_siginfo, inferior, thread_id)
        else:
            store.siginfo = None
        return store

    def _thread_number(self, thread_id: int | None) -> int:
        """gdb's thread number: threads counted in the order they appeared (0: none)."""
        inferior = self._inferior
        if inferior is None or thread_id is None:
            return 0
        if self._thread_numbers is None or self._numbered_pid != inferior.pid:
            self._thread_numbers, self._numbered_pid = {}, inferior.pid
        numbers = self._thread_numbers
        for tid in inferior.threads:  # in the order the process made them
            numbers.setdefault(tid, len(numbers) + 1)
        return numbers.get(thread_id, 0)

    def _record_exit(self, code: int | None) -> None:
        """The program exited: `$_exitcode` is its code (a signal leaves it as it was)."""
        if code is not None:
            self._session_values().exited(code)

    def history_count(self) -> int:
        return self._call(lambda: len(self._session_values().history))

    def convenience_names(self) -> list[str]:
        return self._call(lambda: self._session_values().names())

    def set_examined(self, address: int, size: int, contents: bytes | None) -> None:
        from aliceserver.debuggers.symbols.dwarf.expr.dollars import Examined

        found = Examined(address, size, contents)
        self._call(lambda: self._session_values().examined(found))


def _read_siginfo(inferior: Inferior, tid: int, ctx: FrameContext) -> Value:
    """`$_siginfo`: the thread's last stop's siginfo in gdb's own type (linux-tdep.c);
    gdb's error when the kernel has none (a thread stopped by PTRACE_INTERRUPT)."""
    from aliceserver.debuggers.symbols.dwarf.linux_siginfo import siginfo_type
    from aliceserver.debuggers.symbols.dwarf.values import Value

    try:
        data = inferior.libc.siginfo_bytes(tid)
    except OSError:
        raise EvaluationError("Unable to read siginfo") from None
    return Value.of_bytes(siginfo_type(), data, ctx)


def recorded(info: VariableInfo, value: Value, values: SessionValues) -> VariableInfo:
    """`info` with its number in the value history, where `value` was added (gdb's print);
    unchanged when its bytes cannot be read: the front end reports that, nothing recorded."""
    try:
        number = values.record(value)
    except (EvaluationError, TargetError):
        return info
    return replace(info, history=number)
