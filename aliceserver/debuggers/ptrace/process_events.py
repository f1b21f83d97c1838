"""Process-level ptrace events of an Inferior (a mixin of inferior.py): new threads
(clone), fork and vfork (stay with the parent or follow the child), and exec."""

from __future__ import annotations

import collections
import logging
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, cast

from aliceserver.debuggers.catch_events import gate_wants
from aliceserver.debuggers.events import (
    BreakpointChanged,
    Output,
    ProcessStarted,
    Stopped,
    StopReason,
    ThreadExited,
)
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.model import CatchKind
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.tracee import _NONE, _RESUME, Tracee, _Action
from aliceserver.debuggers.ptrace.traps import PhysicalTrap, TrapTable
from aliceserver.debuggers.ptrace.waitstatus import WaitKind, WaitStatus, decode
from aliceserver.debuggers.ptrace.watch import WatchSlots

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.patched_breakpoints import JumpPatches

log = logging.getLogger(__name__)

_WAIT_ONE = binding.WALL | binding.WNOTHREAD
_ENOSYS = -38 & 0xFFFFFFFFFFFFFFFF  # rax at a syscall's entry stop
# Stops a catchpoint makes: judged by the inferior's catch gate before they are reported.
CATCH_REASONS = frozenset({
    StopReason.FORK, StopReason.VFORK, StopReason.EXEC, StopReason.EXCEPTION,
    StopReason.SYSCALL_ENTRY, StopReason.SYSCALL_RETURN, StopReason.SIGNAL_CAUGHT, StopReason.LIBRARY,
})  # fmt: skip


_SYS_CLONE, _SYS_CLONE3 = 56, 435  # x86-64 system call numbers
_CLONE_SETTLS = 0x80000


class ProcessEvents:
    # Provided by Inferior.
    libc: binding.Libc
    pid: int
    attached: bool
    events: EventSource  # the Inferior's: its engine's event source
    traps: TrapTable
    watches: WatchSlots
    memory: binding.ProcessMemory
    threads: dict[int, "Tracee"]
    catch: set[CatchKind]
    catch_syscalls: frozenset[int] | None
    catch_gate: Callable[[Stopped], bool] | None
    library_change: tuple[tuple[str, ...], tuple[str, ...]]
    exception_type: str | None
    follow_child: bool
    vfork_traps_removed: bool
    jump_patches: "JumpPatches | None"
    strays: list[int]
    first_stops: dict[int, int]
    pending: collections.deque[Stopped]
    told_on_resume: list[Output]
    _on_exec: Callable[["Inferior"], None]

    if TYPE_CHECKING:  # provided by the class this is mixed into
        def _add_thread(self, tid: int, pointer: int | None = None) -> Tracee:
            raise NotImplementedError

        def insert_trap(self, trap: PhysicalTrap) -> None:
            raise NotImplementedError

        def remove_trap(self, trap: PhysicalTrap) -> None:
            raise NotImplementedError

        def regs(self, t: Tracee) -> binding.UserRegs:
            raise NotImplementedError

        def _stop_others(self, tid: int) -> None:
            raise NotImplementedError

        def _classify(self, t: Tracee, status: WaitStatus) -> "Stopped | _Action":
            raise NotImplementedError

        def _resume_thread(self, t: Tracee) -> None:
            raise NotImplementedError

    def _clone_tls(self, t: Tracee) -> int | None:
        """The thread pointer a clone/clone3 with CLONE_SETTLS gave its new thread (its
        fs_base, pthread_self), read from the parent stopped at the clone event."""
        regs = self.regs(t)
        try:
            if regs.orig_rax == _SYS_CLONE3:  # struct clone_args: flags at 0, tls at 56
                args = self.memory.read(regs.rdi, 64)
                flags, tls = int.from_bytes(args[:8], "little"), int.from_bytes(args[56:], "little")
            elif regs.orig_rax == _SYS_CLONE:  # clone(flags, stack, parent_tid, child_tid, tls)
                flags, tls = regs.rdi, regs.r8
            else:
                return None
        except OSError:
            return None
        return tls if flags & _CLONE_SETTLS and tls else None

    def _ptrace_event(self, t: Tracee, event: int) -> "Stopped | _Action":
        if event == binding.PTRACE_EVENT_CLONE:
            new_tid = self.libc.get_event_msg(t.tid)
            if new_tid not in self.threads:
                self._add_thread(new_tid, self._clone_tls(t))
        elif event in (binding.PTRACE_EVENT_FORK, binding.PTRACE_EVENT_VFORK):
            child = self.libc.get_event_msg(t.tid)
            vfork = event == binding.PTRACE_EVENT_VFORK
            if self.follow_child and not vfork:
                self._follow_fork_child(t, child)
                return _NONE
            caught = CatchKind.FORK in self.catch
            self._detach_fork_child(child, vfork, tell_later=caught)
            if caught:
                return Stopped(StopReason.VFORK if vfork else StopReason.FORK, t.tid,
                               description=f"child process {child}", address=int(self.regs(t).rip),
                               new_pid=child)  # fmt: skip
        elif event == binding.PTRACE_EVENT_VFORK_DONE and self.vfork_traps_removed:
            self.vfork_traps_removed = False
            for trap in self.traps.by_address.values():
                if trap.wanted:
                    self.insert_trap(trap)
        elif event == binding.PTRACE_EVENT_EXEC:
            path = self._exec(t)
            if CatchKind.EXEC in self.catch:
                leader = self.threads[self.pid]
                return Stopped(StopReason.EXEC, self.pid, description=path, address=int(self.regs(leader).rip))
        return _RESUME

    def _syscall_stop(self, t: Tracee) -> "Stopped | _Action":
        """A PTRACE_SYSCALL stop at a system call's entry or exit: a stop if it is caught."""
        if self.catch_syscalls is None:
            return _RESUME  # the last syscall catchpoint went while this thread ran
        regs = self.regs(t)
        try:
            entry = self.libc.syscall_op(t.tid) == binding.PTRACE_SYSCALL_INFO_ENTRY
        except OSError:  # before Linux 5.3: the kernel sets rax to -ENOSYS at the entry
            entry = regs.rax == _ENOSYS
        number = int(regs.orig_rax)
        if not self._syscall_caught(number):
            return _RESUME
        reason = StopReason.SYSCALL_ENTRY if entry else StopReason.SYSCALL_RETURN
        return Stopped(reason, t.tid, address=int(regs.rip), syscall=number)

    def _syscall_caught(self, number: int | None) -> bool:
        """Whether a syscall catchpoint (still) wants `number`: also asked of a queued stop
        when it is reported, as its catchpoint may have been deleted since (gdb drops it)."""
        wanted = self.catch_syscalls
        return wanted is not None and (not wanted or number in wanted)

    def _judge_catch(self, stop: Stopped) -> "Stopped | _Action":
        """A catch stop as it is reported (a library event with its libraries), or _RESUME
        when the front end's gate says the program goes on."""
        if stop.reason is StopReason.LIBRARY:
            loaded, unloaded = self.library_change
            stop = replace(stop, description="", libraries_loaded=loaded, libraries_unloaded=unloaded)
        elif stop.reason is StopReason.EXCEPTION:
            stop = replace(stop, exception_type=self.exception_type)
        return stop if self._catch_wanted(stop) else _RESUME

    def _catch_wanted(self, stop: Stopped) -> bool:
        return gate_wants(self.catch_gate, stop)

    def _take_status(self, tid: int, status: int) -> None:
        """A status of a thread other than the reporting one: its stop queued."""
        decoded = decode(status)
        t = self.threads.get(tid)
        if t is None:
            ended = decoded.kind in (WaitKind.EXITED, WaitKind.KILLED)
            if ended or self._early_fork_child(tid, status):
                return  # a thread dropped at exec, a child we left, a fork child's first stop
            t = self._add_thread(tid)
        stop = self._classify(t, decoded)
        if isinstance(stop, Stopped) and stop.reason in CATCH_REASONS:
            stop = self._judge_catch(stop)
        if isinstance(stop, Stopped):
            self.pending.append(stop)

    def _early_fork_child(self, tid: int, status: int) -> bool:
        """Whether an unknown tid's stop is a fork child's first, come before its parent's
        fork event (no thread of ours): kept for that event, which would wait for it."""
        if os.path.exists(f"/proc/{self.pid}/task/{tid}"):
            return False  # a new thread's, come before its clone event
        self.first_stops[tid] = status
        return True

    def _first_stop(self, child: int) -> None:
        if self.first_stops.pop(child, None) is None:  # not taken by a wait for any tid
            self.libc.waitpid(child, _WAIT_ONE)

    def _detach_fork_child(self, child: int, vfork: bool, tell_later: bool = False) -> None:
        """Stay with the parent: take our traps out of the child and let it run free."""
        try:
            self._first_stop(child)  # (auto-attached)
            if vfork and self.jump_patches is not None:
                self.jump_patches.vfork_started(cast("Inferior", self))
            inserted = [trap for trap in self.traps.by_address.values() if trap.inserted]
            if vfork:  # the child shares our memory until it execs: take them out for both
                for trap in inserted:
                    self.remove_trap(trap)
                self.vfork_traps_removed = bool(inserted)
            else:
                child_memory = binding.ProcessMemory(child)
                try:
                    for trap in inserted:
                        child_memory.write(trap.address, trap.original)
                    if self.jump_patches is not None:  # the child goes with the original code
                        self.jump_patches.strip(child_memory.write)
                finally:
                    child_memory.close()
            self.libc.ptrace(binding.PTRACE_DETACH, child, 0, 0)
        except OSError as error:
            log.warning("detaching fork child %d: %s", child, error)
        told = Output("console", f"[Detaching after {'vfork' if vfork else 'fork'} from child process {child}]\n")
        if tell_later:  # as gdb, when the program goes on from the fork's catchpoint
            self.told_on_resume.append(told)
        else:
            self.events.put(told)

    def _follow_fork_child(self, parent: Tracee, child: int) -> None:
        """Leave the parent running untraced and debug the child from here on."""
        self._first_stop(child)
        self._stop_others(parent.tid)
        old_pid = self.pid
        for trap in self.traps.by_address.values():
            if trap.inserted:
                self.memory.write(trap.address, trap.original)  # the child keeps its copy
        if self.jump_patches is not None:  # so with the patches: the parent goes without them
            self.jump_patches.strip(self.memory.write)
        for t in self.threads.values():
            if not t.gone:
                try:
                    self.watches.clear_thread(self.libc, t.tid)
                    self.libc.ptrace(binding.PTRACE_DETACH, t.tid, 0, t.pending_signal)
                except OSError as error:
                    log.debug("detaching fork parent thread %d: %s", t.tid, error)
        self.memory.close()
        if not self.attached:
            self.strays.append(old_pid)  # still our child: reaped when it ends
        self.pid = child
        self.memory = binding.ProcessMemory(child)
        self.threads = {child: Tracee(child)}
        self.watches.move_thread(parent.tid, child)
        self.watches.apply(self.libc, child)
        self.events.put(Output("console", f"[Attaching after process {old_pid} fork to child process {child}]\n"))
        self.events.put(ProcessStarted(child, os.readlink(f"/proc/{child}/exe"), attached=False))
        self._resume_thread(self.threads[child])

    def _exec(self, t: Tracee) -> str:
        for tid in [tid for tid in self.threads if tid != self.pid]:
            del self.threads[tid]
            self.events.put(ThreadExited(tid))
        # The exec'ing thread carries on as the leader (its tid becomes the pid).
        t.tid = self.pid
        t.regs_valid = t.regs_dirty = t.stepping = t.deferred_hit = t.interrupt_sent = False
        t.step_over = None
        t.pending_signal = 0
        self.threads = {self.pid: t}
        self.memory.close()
        self.memory = binding.ProcessMemory(self.pid)
        for trap in list(self.traps.by_address.values()):
            trap.inserted = False
            for bp in list(trap.logical):
                if bp.internal:
                    self.traps.remove(bp.id)
                else:
                    self.events.put(BreakpointChanged(bp.info(False)))
            if not trap.logical:
                self.traps.drop_trap(trap.address)
        self.watches.forget_all()
        if self.jump_patches is not None:
            self.jump_patches.forget()
        try:
            path = os.readlink(f"/proc/{self.pid}/exe")
        except OSError:
            path = "?"
        self.events.put(Output("console", f"process {self.pid} is executing new program: {path}\n"))
        self._on_exec(cast("Inferior", self))  # this mixin only ever lives in an Inferior
        return path
