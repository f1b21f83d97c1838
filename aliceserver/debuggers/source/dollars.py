"""The engine's side of gdb's `$` values (an object the engine composes): one store of the
value history and convenience variables for the debugging session (expr/dollars.py), its
numbers of threads for `$_thread`, and what sets built-in variables (`$_exitcode` at the
exit, `$_` after `x`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Iterable

from aliceserver.debuggers.model import VariableInfo
from aliceserver.debuggers.source.services import EngineServices
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.target import RecordedSignals
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.dollars import SessionValues
    from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value

# The live process's pid and its threads in the order it made them; None: no live process.
LiveThreads = Callable[[], "tuple[int, Iterable[int]] | None"]
SiginfoBytes = Callable[[int], bytes]  # a thread's last stop's siginfo (OSError: none)


class SessionDollars:
    """The store is made when first used: the evaluator's modules are imported only then
    (see variables.py)."""

    def __init__(self, engine: EngineServices, live_threads: LiveThreads, siginfo_bytes: SiginfoBytes) -> None:
        self._engine = engine
        self._live_threads = live_threads
        self._siginfo_bytes = siginfo_bytes
        self._store: SessionValues | None = None
        self._thread_numbers: dict[int, int] | None = None  # tid -> gdb's number, this process's
        self._numbered_pid = 0
        # The front end's integers ($bpnum...), kept until the store is next used: a breakpoint
        # made costs a dict write, not a trip to the engine (rbreak makes thousands).
        self._integers: dict[str, int] = {}
        self._probes: dict[str, set[int]] = {}  # a module's probes' link-time addresses

    def values(self, thread_id: int | None = None) -> SessionValues:
        """The session's store, `$_thread` and `$_siginfo` set for `thread_id` (engine's thread)."""
        if self._store is None:
            from aliceserver.debuggers.symbols.dwarf.expr.dollars import SessionValues

            self._store = SessionValues()
        store = self._store
        for name in list(self._integers):  # in the order set: the first one made is the oldest
            store.set_integer(name, self._integers.pop(name))
        live, read = self._live_threads(), self._siginfo_bytes
        if live is None:  # a core's threads and the siginfo it recorded, if one is open
            live, read = self._core_threads() or (None, read)
        if live is not None:
            live = (live[0], list(live[1]))
        store.probe_at = self._probe_at
        store.thread_number = self._thread_number(live, thread_id)
        # the user's process's threads (none where no thread is: the symbol probe's are not)
        store.thread_count = len(list(live[1])) if live is not None and store.thread_number else 0
        if store.thread_number and live is not None and thread_id is not None:
            tid = thread_id
            store.siginfo = lambda ctx: _siginfo_value(read, tid, ctx)
        else:
            store.siginfo = None
        return store

    def _core_threads(self) -> tuple[tuple[int, Iterable[int]], SiginfoBytes] | None:
        """An open core's pid and threads in its order (gdb's numbers), and its NT_SIGINFO;
        a stub's process's (remote), its threads and what qXfer:siginfo gives."""
        try:
            target = self._engine.target()
            if not isinstance(target, RecordedSignals):
                return None
            return (target.pid, target.thread_ids()), target.siginfo
        except TargetError:
            return None  # no process and no core, or a stub's program running

    def _thread_number(self, live: tuple[int, Iterable[int]] | None, thread_id: int | None) -> int:
        """gdb's thread number: threads counted in the order they appeared (0: none)."""
        if live is None or thread_id is None:
            return 0
        pid, threads = live
        if self._thread_numbers is None or self._numbered_pid != pid:
            self._thread_numbers, self._numbered_pid = {}, pid
        numbers = self._thread_numbers
        for tid in threads:  # in the order the process made them
            numbers.setdefault(tid, len(numbers) + 1)
        return numbers.get(thread_id, 0)

    def _probe_at(self, pc: int) -> bool:
        """Whether an SDT probe of a loaded module is at `pc` (read once per module)."""
        from aliceserver.debuggers.symbols.sdt import read_probes

        for module in self._engine.source_symbols.symbols.modules():
            if module.path not in self._probes:
                self._probes[module.path] = {probe.address for probe in read_probes(module.path)}
            if pc - module.base in self._probes[module.path]:
                return True
        return False

    def record_exit(self, code: int | None, signal: int | None = None) -> None:
        """The program exited: `$_exitcode` is its code, or `$_exitsignal` the signal that
        killed it (the other one void)."""
        self.values().exited(code, signal)

    def set_integer(self, name: str, number: int) -> None:
        """gdb's set_internalvar_integer from the front end (any thread)."""
        self._integers[name] = number

    def history_count(self) -> int:
        return self._engine.run_on_engine(lambda: len(self.values().history))

    def convenience_names(self) -> list[str]:
        return self._engine.run_on_engine(lambda: self.values().names())

    def set_examined(self, address: int, size: int, contents: bytes | None) -> None:
        from aliceserver.debuggers.symbols.dwarf.expr.dollars import Examined

        found = Examined(address, size, contents)
        self._engine.run_on_engine(lambda: self.values().examined(found))


def _siginfo_value(read: SiginfoBytes, tid: int, ctx: FrameContext) -> Value:
    """`$_siginfo`: the thread's last stop's siginfo in gdb's own type (linux-tdep.c);
    gdb's error when the kernel has none (a thread stopped by PTRACE_INTERRUPT)."""
    from aliceserver.debuggers.symbols.dwarf.linux_siginfo import siginfo_type
    from aliceserver.debuggers.symbols.dwarf.values import Value

    try:
        data = read(tid)
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
