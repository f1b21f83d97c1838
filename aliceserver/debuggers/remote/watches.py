"""Watchpoints over a stub (Z2 write, Z4 access): placed by the stub in its debug
registers, judged here at each watch stop as the ptrace backend judges its own (a write
of the same value does not stop, as gdb's)."""

from __future__ import annotations

import dataclasses
import logging

from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import WatchKind, WatchpointInfo, WatchScope
from aliceserver.debuggers.ptrace.traps import TrapTable
from aliceserver.debuggers.remote.process import RemoteProcess
from aliceserver.errors import TargetError, Unsupported

log = logging.getLogger(__name__)

_ACCESS = {WatchKind.WRITE: "write", WatchKind.READ_WRITE: "access"}


class RemoteWatches:
    def __init__(self, traps: TrapTable) -> None:
        self._traps = traps  # one numbering with the breakpoints
        self._watches: dict[int, WatchpointInfo] = {}

    def insert(self, process: RemoteProcess, address: int, size: int, kind: WatchKind,
               scope: WatchScope | None) -> WatchpointInfo:  # fmt: skip
        if scope is not None:
            raise Unsupported("A watchpoint on a frame's locals is not supported over a remote target; "
                              "watch its address with `watch -l`.")  # fmt: skip
        value = process.read_memory(address, size)
        process.insert_watchpoint(address, size, _ACCESS[kind])
        info = WatchpointInfo(self._traps.new_id(), address, size, kind, True, 0, value)
        self._watches[info.id] = info
        return info

    def remove(self, process: RemoteProcess | None, ident: int) -> None:
        info = self._watches.pop(ident, None)
        if info is None:
            raise TargetError(f"no watchpoint number {ident}")
        if process is not None and process.live:
            process.remove_watchpoint(info.address, info.size, _ACCESS[info.kind])

    def all(self) -> list[WatchpointInfo]:
        return list(self._watches.values())

    def place_all(self, process: RemoteProcess) -> None:
        """A new process: the watches on its memory (their addresses hold in it)."""
        for info in self._watches.values():
            try:
                process.insert_watchpoint(info.address, info.size, _ACCESS[info.kind])
            except TargetError as error:
                log.warning("watchpoint %d: %s", info.id, error)

    def remove_all(self, process: RemoteProcess) -> None:
        for info in self._watches.values():
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
            new = process.read_memory(info.address, info.size)
            old = info.value
            if info.kind is WatchKind.WRITE and new == old:
                return None
            self._watches[info.id] = dataclasses.replace(info, value=new, hit_count=info.hit_count + 1)
            return dataclasses.replace(stop, reason=StopReason.WATCHPOINT, breakpoint_ids=(info.id,),
                                       watch_old=old, watch_new=new, description="")  # fmt: skip
        return None
