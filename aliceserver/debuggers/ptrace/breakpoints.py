"""Breakpoints, watchpoints and catchpoints of the live process (an object the engine
composes); also the AddressBreakpoints the source level's location breakpoints bind to
(source/services.py).

Everything here runs on the tracer thread (`run_on_engine`); the traps themselves are
bookkept in traps.py and written by the inferior.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Callable

from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import (
    BreakpointInfo,
    CatchKind,
    Module,
    WatchKind,
    WatchpointInfo,
    WatchScope,
)
from aliceserver.debuggers.ptrace import registers as register_sets
from aliceserver.debuggers.ptrace.binding import Libc
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.patched_breakpoints import JumpPatches
from aliceserver.debuggers.ptrace.state import ProcessAccess
from aliceserver.debuggers.ptrace.traps import LogicalBreakpoint, TrapTable
from aliceserver.debuggers.ptrace.watch import Watch, WatchSlots
from aliceserver.debuggers.ptrace.watchscope import frame_left, retire
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
from aliceserver.debuggers.symbols.disasm import Disassembler
from aliceserver.debuggers.symbols.dwarf.names import Demangler
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.errors import TargetError

log = logging.getLogger(__name__)

_NEAR_FRAMES = 32  # a watched frame is most often near the top: unwind that much first
_ALL_FRAMES = 4096

# Exception catchpoints: the runtime functions to trap, and how the stop is described.
_EXCEPTION_CATCHES = {
    CatchKind.THROW: (("__cxa_throw",), "C++ exception thrown"),
    CatchKind.CATCH: (("__cxa_begin_catch",), "C++ exception caught"),
    CatchKind.RETHROW: (("__cxa_rethrow",), "C++ exception rethrown"),
    CatchKind.PANIC: (("rust_panic", "rust_begin_unwind"), "Rust panic"),
}
# libstdc++'s SDT probes for them: where gdb 13 stops when the library has them.
_EXCEPTION_PROBES = {CatchKind.THROW: "throw", CatchKind.CATCH: "catch", CatchKind.RETHROW: "rethrow"}
_TYPEINFO_NAME = "typeinfo name for "


class Breakpoints:
    def __init__(
        self, access: ProcessAccess, *, traps: TrapTable, watches: WatchSlots, symbols: ProcessSymbols,
        disassembler: Disassembler, libc: Libc, library_event: Callable[[int], None],
    ) -> None:  # fmt: skip
        self._access = access  # the live process (access.inferior) and its memory
        self._call = access.run_on_engine
        self._traps = traps
        self._watches = watches
        self._symbols = symbols
        self._disassembler = disassembler
        self._libc = libc
        self._library_event = library_event  # the loader's trap's on_hit (engine.py)
        self.catch: set[CatchKind] = set()  # copied into each new inferior
        self.armed: dict[CatchKind, int] = {}  # exception catchpoint -> its internal trap
        # gdb's catch syscall / catch signal, and the front end's judge of catch stops (kept
        # across processes: copied into each new inferior when it is armed).
        self._catch_syscalls: frozenset[int] | None = None
        self._catch_signals: frozenset[int] = frozenset()
        self._catch_gate: Callable[[Stopped], bool] | None = None
        self._catch_libraries = False
        self._type_names: Demangler | None = None
        self.jump_patches: JumpPatches | None = None  # set by the live session

    @property
    def _inferior(self) -> Inferior | None:
        return self._access.inferior

    @property
    def _source(self) -> SourceSymbols:
        return self._access.source

    def add_internal(
        self,
        address: int,
        *,
        on_hit: Callable[[int], None] | None = None,
        reports: StopReason | None = None,
        temporary: bool = False,
        note: str = "",
        condition: BreakpointCondition | None = None,
        guards_watch: int | None = None,
    ) -> int:
        assert self._inferior is not None
        bp = LogicalBreakpoint(
            self._traps.new_internal_id(), address, temporary=temporary, internal=True,
            on_hit=on_hit, reports=reports, note=note, condition=condition, guards_watch=guards_watch,
        )  # fmt: skip
        trap = self._traps.add(bp, b"")
        try:
            self._inferior.insert_trap(trap)
        except OSError as error:
            log.warning("internal breakpoint at %#x: %s", address, error)
        return bp.id

    def set_catchpoint(self, kind: CatchKind, enabled: bool) -> None:
        def go() -> None:
            (self.catch.add if enabled else self.catch.discard)(kind)
            if self._inferior is not None:
                self._inferior.catch = set(self.catch)
                self.arm_catchpoints()

        self._call(go)

    def set_catch_events(
        self, *, syscalls: frozenset[int] | None, signals: frozenset[int],
        gate: Callable[[Stopped], bool] | None, libraries: bool = False,
    ) -> None:
        """Stop at these system calls (None: none, empty: all; entry and return) and
        signals, and (`libraries`) when shared libraries load or unload; `gate` decides
        on the tracer thread whether a catch stop is reported."""

        def go() -> None:
            self._catch_syscalls, self._catch_signals, self._catch_gate = syscalls, signals, gate
            self._catch_libraries = libraries
            self.arm_catchpoints()

        self._call(go)

    def arm_catchpoints(self) -> None:
        """Traps for the exception catchpoints, on the runtime's functions once they load."""
        inferior = self._inferior
        if inferior is None:
            return
        inferior.catch_syscalls, inferior.catch_signals = self._catch_syscalls, self._catch_signals
        inferior.catch_gate = self._catch_gate
        for kind, (symbols, note) in _EXCEPTION_CATCHES.items():
            armed = self.armed.get(kind)
            if kind not in self.catch:
                if armed is not None and armed in self._traps.by_id:
                    self.remove_logical(armed)
                self.armed.pop(kind, None)
                continue
            if armed is not None and armed in self._traps.by_id:
                continue
            probe = self._probe_address(kind)
            address = probe or next(  # the runtime's function itself, never a PLT stub calling it
                (found[0].address for name in symbols
                 if (found := [p for p in self._source.resolve(name) if not (p.function or "").endswith("@plt")])),
                None,
            )  # fmt: skip
            if address is None:
                continue  # not loaded (yet): armed when a library with it loads
            on_hit = (lambda tid, kind=kind: self._note_exception_type(kind, tid)) if probe else None
            self.armed[kind] = self.add_internal(address, reports=StopReason.EXCEPTION, note=note, on_hit=on_hit)

    def _note_exception_type(self, kind: CatchKind, tid: int) -> None:
        """At a libstdc++ probe: the thrown type's name (gdb's $_exception type, what a
        catchpoint's regexp is matched against), from the probe's std::type_info argument."""
        inferior = self._inferior
        assert inferior is not None
        inferior.exception_type = None
        regs = inferior.regs(inferior.thread(tid))
        try:
            if kind is CatchKind.THROW:
                tinfo = int(regs.rsi)  # libstdcxx:throw (object %rdi, type_info %rsi)
            elif kind is CatchKind.RETHROW:
                tinfo = int(regs.rax)  # libstdcxx:rethrow (object %rdx, type_info %rax)
            else:  # libstdcxx:catch (object %rdx, type_info -80(%rbx))
                tinfo = int.from_bytes(self._access.read_visible(int(regs.rbx) - 80, 8), "little")
            name_at = int.from_bytes(self._access.read_visible(tinfo + 8, 8), "little")
            raw = self._access.read_visible(name_at, 256).split(b"\0", 1)[0].decode(errors="replace")
        except (TargetError, OSError):
            return
        if self._type_names is None:
            self._type_names = Demangler()
        shown = self._type_names.demangle("_ZTS" + raw.lstrip("*"))
        inferior.exception_type = shown[len(_TYPEINFO_NAME):] if shown.startswith(_TYPEINFO_NAME) else raw

    @property
    def catching_libraries(self) -> bool:
        return self._catch_libraries

    def catch_library_change(self, loaded: list[Module], unloaded: list[Module]) -> None:
        """At the dynamic loader's trap: make it report this change when libraries are caught."""
        inferior = self._inferior
        if inferior is None:
            return
        caught = self._catch_libraries  # every event, as gdb: the gate lets through those wanted
        inferior.library_change = (tuple(m.path for m in loaded), tuple(m.path for m in unloaded))
        for bp in self._traps.by_id.values():
            if bp.internal and bp.on_hit is not None and bp.on_hit == self._library_event:
                bp.reports = StopReason.LIBRARY if caught else None

    def _probe_address(self, kind: CatchKind) -> int | None:
        name = _EXCEPTION_PROBES.get(kind)
        if name is None:
            return None
        from aliceserver.debuggers.symbols.sdt import read_probes

        for module in self._symbols.modules():
            if "libstdc++" not in module.path:
                continue
            for probe in read_probes(module.path):
                if (probe.provider, probe.name) == ("libstdcxx", name):
                    return module.base + probe.address
        return None

    # --- breakpoints and watchpoints ------------------------------------------------
    def insert_breakpoint(
        self,
        address: int,
        *,
        temporary: bool = False,
        enabled: bool = True,
        condition: BreakpointCondition | None = None,
    ) -> BreakpointInfo:
        return self._call(lambda: self.insert_address_breakpoint(address, temporary, enabled, condition))

    def insert_address_breakpoint(
        self, address: int, temporary: bool, enabled: bool, condition: BreakpointCondition | None,
        *, at_instruction: bool = False,
    ) -> BreakpointInfo:
        """`at_instruction`: the caller knows `address` starts an instruction."""
        inferior = self._inferior
        if inferior is not None and not at_instruction:
            self._check_boundary(address)
        bp = LogicalBreakpoint(self._traps.new_id(), address, enabled, temporary, condition)
        trap = self._traps.add(bp, b"")
        if inferior is not None and trap.wanted:
            try:
                inferior.insert_trap(trap)
            except OSError:
                if self._access.kept_library_at(address) is not None:  # bound, inserted as it loads
                    return bp.info(False)
                self.remove_logical(bp.id)
                raise TargetError(
                    f"Cannot insert breakpoint {bp.id}. Cannot access memory at address {address:#x}"
                ) from None
        return bp.info(trap.inserted)

    def _check_boundary(self, address: int) -> None:
        """Refuse a trap inside an instruction: it would silently corrupt the program."""
        where = self._symbols.lookup_address(address)
        if where.name is None or where.offset == 0 or where.offset > 1 << 16:
            return
        start = address - where.offset
        code = self._access.read_visible(start, where.offset + 16)
        if address not in self._disassembler.instruction_boundaries(code, start):
            raise TargetError(
                f"{address:#x} is not the start of an instruction (inside {where.name}+{where.offset})"
            )

    def remove_logical(self, ident: int) -> None:
        trap = self._traps.remove(ident)
        inferior = self._inferior
        if not trap.wanted and inferior is not None:
            inferior.remove_trap(trap)
        if not trap.logical:
            self._traps.drop_trap(trap.address)

    def remove_breakpoint(self, breakpoint_id: int) -> None:
        def go() -> None:
            bp = self._traps.get(breakpoint_id)
            if bp.internal:
                raise TargetError(f"no breakpoint number {breakpoint_id}")
            self.remove_logical(breakpoint_id)

        self._call(go)

    def enable_breakpoint(self, breakpoint_id: int, enabled: bool) -> BreakpointInfo:
        def go() -> BreakpointInfo:
            bp = self._traps.get(breakpoint_id)
            bp.enabled = enabled
            trap = self._traps.by_address[bp.address]
            inferior = self._inferior
            if inferior is not None:
                if trap.wanted:
                    inferior.insert_trap(trap)
                else:
                    inferior.remove_trap(trap)
            return bp.info(trap.inserted)

        return self._call(go)

    def breakpoints(self) -> list[BreakpointInfo]:
        def go() -> list[BreakpointInfo]:
            patches = self.jump_patches
            if patches is None:
                return [bp.info(self._traps.by_address[bp.address].inserted)
                        for bp in sorted(self._traps.user_breakpoints(), key=lambda b: b.id)]  # fmt: skip
            patches.fold_counts()  # the hits the program counted itself
            return [
                replace(bp.info(self._traps.by_address[bp.address].inserted or bp.address in patches.sites),
                        note=patches.note(bp.address))  # fmt: skip
                for bp in sorted(self._traps.user_breakpoints(), key=lambda b: b.id)
            ]

        return self._call(go)

    def insert_watchpoint(
        self, address: int, size: int, kind: WatchKind, scope: WatchScope | None = None, *,
        more: tuple[tuple[int, int], ...] = (), software: bool = False,
    ) -> WatchpointInfo:
        def go() -> WatchpointInfo:
            inferior = self._access.require_stopped()
            value = b"".join(self._access.read_visible(at, length) for at, length in ((address, size), *more))
            watch = Watch(self._traps.new_id(), address, size, kind, value, more=more, software=software)
            if scope is not None:
                watch.scope, watch.thread = scope, scope.thread_id
                watch.return_address = self._return_address(inferior, scope)
            self._watches.add(watch)
            if watch.return_address is not None:
                watch.guard_id = self.add_internal(
                    watch.return_address, temporary=True, guards_watch=watch.id,
                    condition=lambda tid: frame_left(inferior, watch, tid),
                    on_hit=lambda tid: retire(inferior, watch, drop_guard=False),
                )  # fmt: skip
            self._apply_watches(inferior)
            return watch.info()

        return self._call(go)

    def _return_address(self, inferior: Inferior, scope: WatchScope) -> int | None:
        """Where the scope's frame returns to (None: it is the outermost); TargetError when
        no frame of the thread has its CFA (it has returned already)."""
        t = inferior.thread(scope.thread_id)
        registers = register_sets.general(inferior.regs(t)).values
        for limit in (_NEAR_FRAMES, _ALL_FRAMES):
            frames = self._source.unwind(registers, self._access.read_visible, limit=limit)
            for index, frame in enumerate(frames):
                if frame.cfa == scope.frame_cfa:
                    return frames[index + 1].pc if index + 1 < len(frames) else None
            if len(frames) < limit:
                break
        raise TargetError(
            f"Thread {scope.thread_id} has no frame at {scope.frame_cfa:#x} any more: "
            "the program has left the block in which the expression is valid."
        )

    def _apply_watches(self, inferior: Inferior) -> None:
        for t in inferior.threads.values():
            if not t.gone:
                self._watches.apply(self._libc, t.tid)

    def remove_watchpoint(self, watchpoint_id: int) -> None:
        def go() -> None:
            watch = self._watches.remove(watchpoint_id)
            if watch.guard_id is not None and watch.guard_id in self._traps.by_id:
                self.remove_logical(watch.guard_id)
            if self._inferior is not None:
                self._apply_watches(self._access.require_stopped())

        self._call(go)

    def watchpoints(self) -> list[WatchpointInfo]:
        return self._call(lambda: [w.info() for w in self._watches.all()])

    # --- AddressBreakpoints (source/services.py): location breakpoints' traps ------------
    def forget_address_breakpoint(self, ident: int) -> None:
        try:
            self.remove_logical(ident)
        except TargetError:
            pass  # a temporary one that already went

    def code_unmapped(self, address: int) -> None:
        trap = self._traps.by_address.get(address)
        if trap is not None:
            trap.inserted = False
        if self.jump_patches is not None:
            self.jump_patches.code_unmapped(address)
