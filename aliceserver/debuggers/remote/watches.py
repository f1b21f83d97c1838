"""Watchpoints over a stub (Z2 write, Z4 access): placed by the stub in its debug
registers, judged here at each watch stop as the ptrace backend judges its own (a write
of the same value does not stop, as gdb's). A watch on a frame's locals dies with the
frame as there (ptrace/watchscope.py): a guard breakpoint at the frame's return address
deletes it when its thread comes back with the frame popped, and a watch that fires
after its frame was left otherwise (longjmp) is deleted then."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.catch_events import gate_wants
from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import StackFrame, WatchKind, WatchpointInfo, WatchScope
from aliceserver.debuggers.ptrace.traps import LogicalBreakpoint, TrapTable
from aliceserver.debuggers.remote.errors import RemoteUnsupported
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.remote.process import RemoteProcess

log = logging.getLogger(__name__)

_ACCESS = {WatchKind.WRITE: "write", WatchKind.READ_WRITE: "access"}


@dataclasses.dataclass(frozen=True, slots=True)
class _Scope:
    frame: WatchScope
    return_address: int | None  # None: the frame is the outermost one
    guard_id: int | None  # the guard breakpoint at the return address


def scope_return_address(frames: Sequence[StackFrame], scope: WatchScope) -> int | None:
    """Where the scope's frame returns to (None: it is the outermost), from its thread's
    stack; TargetError, in gdb's words, when no frame has its CFA any more."""
    for index, frame in enumerate(frames):
        if frame.cfa == scope.frame_cfa and not frame.inlined:
            return frames[index + 1].pc if index + 1 < len(frames) else None
    raise TargetError(f"Thread {scope.thread_id} has no frame at {scope.frame_cfa:#x} any more: "
                      "the program has left the block in which the expression is valid.")  # fmt: skip


class RemoteWatches:
    def __init__(self, traps: TrapTable) -> None:
        self._traps = traps  # one numbering with the breakpoints
        self._watches: dict[int, WatchpointInfo] = {}
        self._scopes: dict[int, _Scope] = {}
        self._pending: set[int] = set()  # not in the stub yet: tried again at each resume
        self.gate: Callable[[Stopped], bool] | None = None  # as ptrace/watch.py's WatchSlots

    def insert(self, process: RemoteProcess, address: int, size: int, kind: WatchKind,
               scope: WatchScope | None, return_address: int | None = None) -> WatchpointInfo:  # fmt: skip
        """`scope` (with the frame's `return_address`, scope_return_address): the watch is
        deleted when that frame is left."""
        value = process.read_memory(address, size)
        try:
            process.insert_watchpoint(address, size, _ACCESS[kind])
            pending = False
        except RemoteUnsupported:  # qemu-user's stub has no Z2: gdb says so at the resume
            pending = True
        info = WatchpointInfo(self._traps.new_id(), address, size, kind, True, 0, value)
        self._watches[info.id] = info
        if pending:
            self._pending.add(info.id)
        if scope is not None:
            guard = None
            if return_address is not None:
                guard = self._guard(process, info.id, scope, return_address)
            self._scopes[info.id] = _Scope(scope, return_address, guard)
        return info

    def insert_pending(self, process: RemoteProcess) -> None:
        """Before a resume: the watches the stub would not take, asked again; where it
        still will not, the resume is refused in gdb's words (insert_breakpoint_locations)."""
        refused = []
        for ident in sorted(self._pending):
            info = self._watches[ident]
            try:
                process.insert_watchpoint(info.address, info.size, _ACCESS[info.kind])
                self._pending.discard(ident)
            except RemoteUnsupported:
                refused.append(f"Could not insert hardware watchpoint {ident}.\n")
        if refused:
            raise TargetError("Warning:\n" + "".join(refused) + "Could not insert hardware breakpoints:\n"
                              "You may have requested too many hardware breakpoints/watchpoints.\n\nCommand aborted.")  # fmt: skip

    def _guard(self, process: RemoteProcess, ident: int, scope: WatchScope, return_address: int) -> int:
        def frame_left(tid: int) -> bool:  # back in the caller with the frame popped
            return tid == scope.thread_id and process.general_registers(tid)[process.arch.sp] >= scope.frame_cfa

        def retire(tid: int) -> None:  # the guard itself goes as a temporary trap
            self._scopes.pop(ident, None)
            if ident in self._watches:
                self._count_hit(ident)
                self.remove(process, ident)

        bp = LogicalBreakpoint(self._traps.new_internal_id(), return_address, temporary=True, internal=True,
                               condition=frame_left, on_hit=retire, guards_watch=ident)  # fmt: skip
        trap = self._traps.add(bp, b"")
        if trap.address not in process.breakpoints.inserted:
            process.insert_breakpoint(trap.address)
        return bp.id

    def _drop_guard(self, process: RemoteProcess | None, scope: _Scope) -> None:
        if scope.guard_id is None or scope.guard_id not in self._traps.by_id:
            return
        trap = self._traps.remove(scope.guard_id)
        if trap.wanted:
            return  # a breakpoint of the user's or the engine's is there too
        if process is not None and process.live and trap.address in process.breakpoints.inserted:
            process.remove_breakpoint(trap.address)
        if not trap.logical:
            self._traps.drop_trap(trap.address)

    def _count_hit(self, ident: int) -> None:
        """gdb counts the scope check as a hit of the watchpoint."""
        info = self._watches[ident]
        self._watches[ident] = dataclasses.replace(info, hit_count=info.hit_count + 1)

    def remove(self, process: RemoteProcess | None, ident: int) -> None:
        info = self._watches.pop(ident, None)
        if info is None:
            raise TargetError(f"no watchpoint number {ident}")
        scope = self._scopes.pop(ident, None)
        if scope is not None:
            self._drop_guard(process, scope)
        if process is not None and process.live and ident not in self._pending:
            process.remove_watchpoint(info.address, info.size, _ACCESS[info.kind])
        self._pending.discard(ident)

    def all(self) -> list[WatchpointInfo]:
        return list(self._watches.values())

    def place_all(self, process: RemoteProcess) -> None:
        """A new process: the watches on its memory (their addresses hold in it)."""
        for info in self._watches.values():
            try:
                process.insert_watchpoint(info.address, info.size, _ACCESS[info.kind])
                self._pending.discard(info.id)
            except RemoteUnsupported:
                self._pending.add(info.id)
            except TargetError as error:
                log.warning("watchpoint %d: %s", info.id, error)

    def remove_all(self, process: RemoteProcess) -> None:
        for info in self._watches.values():
            if info.id in self._pending:
                continue
            try:
                process.remove_watchpoint(info.address, info.size, _ACCESS[info.kind])
            except TargetError as error:
                log.info("watchpoint %d: %s", info.id, error)

    def judge(self, process: RemoteProcess, stop: Stopped) -> Stopped | None:
        """The watch a stop reply's address names; None: nothing to report (same value)."""
        reply = process.last_reply
        address = reply.address if reply is not None else None
        for info in self._watches.values():
            if address is not None and not info.address <= address < info.address + info.size:
                continue
            scope = self._scopes.get(info.id)
            if scope is not None and not _frame_alive(process, stop.thread_id, scope):
                # Left without returning (longjmp): the memory serves another frame now.
                self._count_hit(info.id)
                self.remove(process, info.id)
                return dataclasses.replace(stop, reason=StopReason.WATCHPOINT_SCOPE, breakpoint_ids=(info.id,),
                                           watches_left=(info.id,), description="")  # fmt: skip
            new = process.read_memory(info.address, info.size)
            old = info.value
            if info.kind is WatchKind.WRITE and new == old:
                return None
            self._watches[info.id] = dataclasses.replace(info, value=new, hit_count=info.hit_count + 1)
            told = dataclasses.replace(stop, reason=StopReason.WATCHPOINT, breakpoint_ids=(info.id,),
                                       watch_old=old, watch_new=new, description="")  # fmt: skip
            return told if gate_wants(self.gate, told) else None
        return None


def _frame_alive(process: RemoteProcess, tid: int, scope: _Scope) -> bool:
    """As ptrace/watchscope.py's frame_alive: the thread's stack pointer below the frame's
    CFA and the frame's return address still where the call left it (x86-64: just below
    the CFA; elsewhere the stack pointer alone tells)."""
    if tid != scope.frame.thread_id:
        return True  # another thread wrote the watched memory: the frame lives on
    if process.general_registers(tid)[process.arch.sp] >= scope.frame.frame_cfa:
        return False
    if scope.return_address is None or process.arch.name != "i386:x86-64":
        return True
    try:
        slot = process.read_memory(scope.frame.frame_cfa - 8, 8)
    except (OSError, TargetError):
        return False
    return int.from_bytes(slot, "little") == scope.return_address
