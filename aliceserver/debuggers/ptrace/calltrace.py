"""Function call tracing (an object the engine composes): the program never stops.

A traced function gets an internal trap at its entry and one at each of its `ret`
instructions. At the entry the hook sees the arguments where the ABI puts them
(callabi.py) and the call's CFA (rsp + 8); at a `ret`, rsp + 8 is that same CFA again, so
recursion and threads pair up by (thread, CFA). Both traps are emulated (push / endbr64 at
entries, the `ret` itself), so a traced call costs two trap stops and no single-step. The
`ret` traps are only in memory while some call of the function waits for its return.

A call that leaves without its `ret` (a tail call in optimized code, longjmp, an
exception) is forgotten when a later call on its thread sits at or above its frame.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.base import CallEntryHook, CallExitHook
from aliceserver.debuggers.model import (
    FunctionSymbol,
    SymbolLocation,
    VectorRegisters,
)
from aliceserver.debuggers.ptrace import registers as register_sets
from aliceserver.debuggers.ptrace.binding import Libc, UserRegs
from aliceserver.debuggers.ptrace.callabi import ArgumentSlot, fast_scalar, plan_arguments
from aliceserver.debuggers.ptrace.calltrace_functions import ModuleFunctions, NameFilter
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.patches.install import PatchTable
from aliceserver.debuggers.ptrace.traps import LogicalBreakpoint, TrapTable
from aliceserver.debuggers.source.retvalue import return_bytes
from aliceserver.debuggers.source.services import EngineServices
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
from aliceserver.debuggers.source.variables import FrameView
from aliceserver.debuggers.symbols.disasm import Disassembler
from aliceserver.debuggers.symbols.dwarf.format import FormatOptions, format_value
from aliceserver.debuggers.symbols.dwarf.locexpr import ImplicitLoc, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.names import Demangler
from aliceserver.debuggers.symbols.dwarf.types import StructType, Type, is_float, strip
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.errors import AliceError, TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.patched_calltrace import CallRecorder

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Trace:
    id: int
    function: FunctionSymbol
    on_entry: CallEntryHook
    on_exit: CallExitHook
    options: FormatOptions
    bias: int
    slots: list[ArgumentSlot]
    returns: Type | None
    entry: LogicalBreakpoint
    rets: list[LogicalBreakpoint]
    returns_armed: bool = False
    open_calls: dict[int, list[int]] = field(default_factory=dict)  # tid -> CFAs, outermost first

    @property
    def waiting(self) -> bool:
        return any(self.open_calls.values())


class _Hit:
    """What a hook may read of the stopped thread (CallEntry / CallExit)."""

    __slots__ = ("thread_id", "cfa", "_engine", "_trace", "_regs", "_vectors")

    def __init__(self, engine: CallTracer, trace: _Trace, tid: int, regs: UserRegs) -> None:
        self.thread_id = tid
        self.cfa = (regs.rsp + 8) & 0xFFFFFFFFFFFFFFFF
        self._engine = engine
        self._trace = trace
        self._regs = regs
        self._vectors: VectorRegisters | None = None

    def _vector(self) -> VectorRegisters:
        if self._vectors is None:
            self._vectors = register_sets.vector(self._engine.libc, self.thread_id)
        return self._vectors

    def _context(self) -> FrameView:
        live = register_sets.LiveRegisters(self._regs)
        pc = int(self._regs.rip)
        frame = UnwoundFrame(0, pc, self.cfa, live, SymbolLocation(pc, None, 0, None), "first")
        return FrameView(frame, self._trace.bias, self._engine.read_visible, _read_only, None)

    def arguments(self) -> list[tuple[str, str]]:
        result = []
        for slot in self._trace.slots:
            try:
                result.append((slot.name, self._argument(slot)))
            except (AliceError, OSError, ValueError, IndexError) as error:
                result.append((slot.name, f"<error: {error}>"))
        return result

    def _argument(self, slot: ArgumentSlot) -> str:
        if slot.fast is not None:
            return slot.fast(getattr(self._regs, str(slot.pieces[0][1])))
        ctx = self._context()
        if slot.stack_offset is not None:
            value = Value(slot.type, MemoryLoc(int(self._regs.rsp) + slot.stack_offset), ctx)
        else:
            data = b""
            for kind, where in slot.pieces:
                if kind == "int":
                    data += (getattr(self._regs, str(where)) & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")
                else:
                    data += self._vector().xmm[int(where)][:8]
            value = Value(slot.type, ImplicitLoc(data[: max(strip(slot.type).size, 1)]), ctx)
        return format_value(value, self._trace.options)

    def return_value(self) -> str | None:
        returns = self._trace.returns
        if returns is None:
            return None
        fast = fast_scalar(returns)
        if fast is not None:
            return fast(int(self._regs.rax))
        stripped = strip(returns)
        vectors = self._vector() if is_float(stripped) or isinstance(stripped, StructType) else None
        try:
            data, address = return_bytes(returns, register_sets.LiveRegisters(self._regs), vectors)
            if data is not None:
                value = Value(returns, ImplicitLoc(data), self._context())
            elif address is not None:
                value = Value(returns, MemoryLoc(address), self._context())
            else:
                return None
            return format_value(value, self._trace.options)
        except (AliceError, OSError, ValueError) as error:
            return f"<error: {error}>"


def _read_only(address: int, data: bytes) -> None:
    raise TargetError("tracing does not write the program's memory")


class CallTracer:
    def __init__(
        self, engine: EngineServices, *, inferior: Callable[[], Inferior | None], require: Callable[[], Inferior],
        traps: TrapTable, symbols: ProcessSymbols, disassembler: Disassembler, libc: Libc,
        patches: PatchTable | None = None,
    ) -> None:  # fmt: skip
        self._engine = engine
        self._call = engine.run_on_engine
        self._current = inferior  # the live process, None without one
        self._require = require  # the same, refused without one
        self._traps = traps
        self._symbols = symbols
        self._disassembler = disassembler
        self.libc = libc
        self.read_visible = engine.read_visible
        self._call_traces: dict[int, _Trace] = {}
        self._function_lists: dict[tuple[str, int], ModuleFunctions | None] = {}
        self._demangler: Demangler | None = None  # made at the first listing
        # What calls recorded by jump patches (patched_calltrace.py) use of this one.
        self.run_on_engine, self.require, self.current = engine.run_on_engine, require, inferior
        self.symbols, self.traps, self.signature = symbols, traps, self._signature
        self.patches = patches
        self.recorder: CallRecorder | None = None
        if patches is not None:
            from aliceserver.debuggers.ptrace.patched_calltrace import CallRecorder

            self.recorder = CallRecorder(self)

    @property
    def _source(self) -> SourceSymbols:
        return self._engine.source_symbols

    # --- functions ------------------------------------------------------------------
    def functions(self, named: NameFilter | None = None) -> list[FunctionSymbol]:
        return self._call(lambda: self._list_functions(named))

    def _list_functions(self, named: NameFilter | None) -> list[FunctionSymbol]:
        if self._current() is None:
            return []
        found: list[FunctionSymbol] = []
        for module in self._symbols.modules():
            key = (module.path, module.base)
            if key not in self._function_lists:
                info = self._source.debug_info(module)
                if info is None or not info.has_line_info():
                    self._function_lists[key] = None
                else:
                    if self._demangler is None:
                        self._demangler = Demangler()
                    self._function_lists[key] = ModuleFunctions.of(info, module.base, module.path, self._demangler)
            listing = self._function_lists[key]
            if listing is not None:
                found += listing.listed(named)
        return found

    # --- tracing --------------------------------------------------------------------
    def trace_calls(
        self, function: FunctionSymbol, on_entry: CallEntryHook, on_exit: CallExitHook, *, depth: int = 1
    ) -> int:
        return self._call(lambda: self._trace(function, on_entry, on_exit, depth))

    def _trace(self, function: FunctionSymbol, on_entry: CallEntryHook, on_exit: CallExitHook, depth: int) -> int:
        inferior = self._require()
        for stale in [t for t in self._call_traces.values() if t.entry.id not in self._traps.by_id]:
            del self._call_traces[stale.id]  # their process ended: the engine dropped the traps
        module = self._symbols.module_at(function.address)
        if module is None:
            raise TargetError(f"no module maps {function.name} at {function.address:#x}")
        params, returns = self._signature(function.address, module.base)
        options = FormatOptions(max_depth=max(depth, 0), max_elements=16, repeat_threshold=10)
        entry = LogicalBreakpoint(self._traps.new_internal_id(), function.address, internal=True)
        rets = [
            LogicalBreakpoint(self._traps.new_internal_id(), address, enabled=False, internal=True)
            for address in self._returns_of(function)
        ]
        trace = _Trace(
            entry.id, function, on_entry, on_exit, options, module.base,
            plan_arguments(params, returns), returns, entry, rets,
        )  # fmt: skip
        entry.on_hit = lambda tid: self._entered(trace, tid)
        for bp in rets:
            bp.on_hit = lambda tid: self._returned(trace, tid)
        for bp in [entry, *rets]:
            trap = self._traps.add(bp, b"")
            if trap.wanted:
                try:
                    inferior.insert_trap(trap)
                except OSError as error:
                    self._drop(trace)
                    raise TargetError(f"cannot trace {function.name}: {error.strerror}") from None
        self._call_traces[trace.id] = trace
        return trace.id

    def _signature(self, address: int, bias: int) -> tuple[list[tuple[str, Type]], Type | None]:
        """Parameter names and types, and the return type (None: void or unknown)."""
        module = self._symbols.module_at(address)
        symbols = self._source.module_symbols(module) if module is not None else None
        if symbols is None:
            return [], None
        link = _Link(address, bias)
        try:
            scope = symbols.frame_scope(link, lookup_pc=address)  # type: ignore[arg-type]
            if scope is None or scope.function is None:
                return [], None
            params = [(var.name, var.type) for var in scope.arguments()]
            returns = symbols.function_type(scope.function).return_type
        except (AliceError, ValueError, KeyError) as error:
            log.debug("no signature for %#x: %s", address, error)
            return [], None
        stripped = strip(returns) if returns is not None else None
        return params, None if stripped is None or stripped.size == 0 else returns

    def _returns_of(self, function: FunctionSymbol) -> list[int]:
        code = self.read_visible(function.address, function.size)
        found = []
        for insn in self._disassembler.disassemble(code, function.address):
            if insn.mnemonic.split()[-1] in ("ret", "retq"):
                found.append(insn.address)
        return found

    def untrace_calls(self, trace_id: int) -> None:
        def go() -> None:
            trace = self._call_traces.pop(trace_id, None)
            if trace is None:
                raise TargetError(f"no call trace number {trace_id}")
            self._drop(trace)

        self._call(go)

    def _drop(self, trace: _Trace) -> None:
        self._call_traces.pop(trace.id, None)
        for bp in [trace.entry, *trace.rets]:
            if bp.id not in self._traps.by_id:
                continue  # the process ended: the engine dropped its internal traps
            trap = self._traps.remove(bp.id)
            inferior = self._current()
            if not trap.wanted and inferior is not None:
                inferior.remove_trap(trap)
            if not trap.logical:
                self._traps.drop_trap(trap.address)

    # --- at the traps (tracer thread) ------------------------------------------------
    def _regs(self, tid: int) -> UserRegs | None:
        inferior = self._current()
        t = inferior.threads.get(tid) if inferior is not None else None
        return None if inferior is None or t is None else inferior.regs(t)

    def _entered(self, trace: _Trace, tid: int) -> None:
        regs = self._regs(tid)
        if regs is None:
            return
        hit = _Hit(self, trace, tid, regs)
        stack = trace.open_calls.setdefault(tid, [])
        while stack and stack[-1] <= hit.cfa:
            stack.pop()  # left without its ret (longjmp, tail call): its frame is reused
        try:
            wanted = trace.on_entry(hit)
        except Exception:  # a hook must never wedge the program: it would stay stopped
            log.exception("call trace hook of %s failed", trace.function.name)
            wanted = False
        if wanted:
            stack.append(hit.cfa)
            if not trace.returns_armed:
                self._arm_returns(trace, True)
        elif trace.returns_armed and not trace.waiting:
            self._arm_returns(trace, False)  # sampled out, nothing pending: save the stops

    def _returned(self, trace: _Trace, tid: int) -> None:
        regs = self._regs(tid)
        stack = trace.open_calls.get(tid)
        if regs is None or not stack:
            return
        hit = _Hit(self, trace, tid, regs)
        if hit.cfa not in stack:
            return
        while stack[-1] != hit.cfa:
            stack.pop()
        stack.pop()
        try:
            trace.on_exit(hit)
        except Exception:
            log.exception("call trace hook of %s failed", trace.function.name)

    def _arm_returns(self, trace: _Trace, armed: bool) -> None:
        inferior = self._current()
        trace.returns_armed = armed
        for bp in trace.rets:
            bp.enabled = armed
            trap = self._traps.by_address.get(bp.address)
            if inferior is None or trap is None:
                continue
            try:
                if trap.wanted:
                    inferior.insert_trap(trap)
                else:
                    inferior.remove_trap(trap)
            except OSError as error:
                log.warning("return trap of %s at %#x: %s", trace.function.name, bp.address, error)


@dataclass(frozen=True, slots=True)
class _Link:
    """The little of a FrameContext that finding a function's scope needs."""

    pc: int
    load_bias: int
