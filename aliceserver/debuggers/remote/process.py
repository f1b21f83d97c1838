"""A process behind a stub as a LiveProcess (debuggers/target.py): the process interface
over gdb's remote protocol, as the ptrace backend offers it over ptrace. target.py holds
the read side; this module makes one (connect, run, attach) and drives it.

The protocol is all-stop here: a resume (`vCont`) answers with one stop reply when the
program stops again, and then every thread is stopped. `resume`/`step` send the request
and return at once, as the ptrace backend's do; `wait` takes the stop reply and returns
the engine's event (Stopped or Exited); `interrupt` (^C) may be called from another thread
while `wait` blocks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from aliceserver.debuggers.events import Exited, Stopped
from aliceserver.debuggers.remote import packets, signals, stops
from aliceserver.debuggers.remote import resume as packets_to_resume
from aliceserver.debuggers.remote.breakpoints import StubBreakpoint
from aliceserver.debuggers.remote.client import RemoteClient
from aliceserver.debuggers.remote.connection import DEFAULT_TIMEOUT, Connection, open_channel
from aliceserver.debuggers.remote.errors import RemoteError, RemoteUnsupported
from aliceserver.debuggers.remote.memory import LINE, STACK_LINES
from aliceserver.debuggers.remote.target import RemoteTarget
from aliceserver.debuggers.remote.threadids import ThreadRef
from aliceserver.debuggers.target import LiveProcess
from aliceserver.errors import TargetError


class RemoteProcess(RemoteTarget):
    """The live side and the read side of one process a stub debugs. Make one with
    `connect` (`target remote`), or `connect(..., extended=True)` then `run`/`attach`
    (`target extended-remote`)."""

    # --- making one -----------------------------------------------------------------
    @classmethod
    def connect(cls, target: str, *, extended: bool = False,
                timeout: float | None = DEFAULT_TIMEOUT, connect_timeout: float | None = DEFAULT_TIMEOUT,
                auto_retry: bool = False) -> RemoteProcess:  # fmt: skip
        """`HOST:PORT` or `| COMMAND`: negotiate, read the target description and, where
        the stub debugs a process already, its stop (`?`). `timeout` for each reply (None:
        for ever), `connect_timeout` and `auto_retry` for a TCP connection (TcpChannel)."""
        channel = open_channel(target, connect_timeout, auto_retry=auto_retry)
        connection = Connection(channel, timeout)
        try:
            client = RemoteClient(connection)
            client.negotiate()
            if extended:
                client.ok(b"!")
            process = cls(client, extended=extended)
            first = stops.parse(client.ask(b"?"))
            if isinstance(first, stops.SignalStop):
                process._take(first, initial=True)
            elif not extended:
                raise TargetError("The remote stub debugs no process.")
        except BaseException:
            connection.close()
            raise
        return process

    def run(self, program: str, args: Sequence[str] = ()) -> Stopped:
        """Extended remote: start `program` (`vRun`), stopped at its first instruction."""
        if not self.extended:
            raise TargetError('The remote target does not support "run".')
        words = [program, *args]
        body = b"vRun;" + b";".join(packets.hex_bytes(word.encode()) for word in words)
        try:
            reply = self.client.ask(body)
        except RemoteUnsupported:
            raise
        except RemoteError:  # gdb's extended_remote_run
            if not program:
                raise TargetError('Running the default executable on the remote target failed; '
                                  'try "set remote exec-file"?') from None
            raise TargetError(f'Running "{program}" on the remote target failed') from None
        return self._started(reply)

    def attach(self, pid: int) -> Stopped:
        """Extended remote: attach to process `pid` (`vAttach`)."""
        if not self.extended:
            raise TargetError('The remote target does not support "attach".')
        return self._started(self.client.ask(b"vAttach;%x" % pid), attached=True)

    def _started(self, reply: bytes, *, attached: bool = False) -> Stopped:
        self._exited = None
        self.registers.clear()  # a new process: nothing of the last one holds
        self.memory.forget()
        self.threads.forget()
        self.breakpoints.inserted.clear()
        event = self._take(stops.parse(reply), initial=True, attached=attached)
        if not isinstance(event, Stopped):
            raise TargetError("The program exited before it started.")
        return event

    # --- the live side --------------------------------------------------------------
    def resume(self, only: int | None = None, *, step_over: bool = True, jumped: int | None = None) -> None:
        """Every thread (`vCont;c`), or only thread `only`; a signal the last stop
        reported (not a trap, not our ^C) goes to the program, as ptrace passes it. The
        thread stopped on one of our breakpoints is stepped past it first, unless
        `step_over` is False (a call into the program starts at a function's first
        instruction: a breakpoint there is hit, as gdb's proceed to an address), or it is
        thread `jumped`, whose pc a jump set."""
        self._check_resumable()
        stopped = self._last_stop.thread_id if self._last_stop is not None else None
        step_over = step_over and stopped != jumped
        if stopped is not None and step_over and (only is None or only == stopped):
            point = self._breakpoint_under(stopped)
            if point is not None:
                self._step_over(stopped, point)
                if self._early is not None:  # the step stopped for something else: report it
                    self.threads.forget()
                    with self._lock:
                        self._running, self._stepping, self._interrupted = True, False, False
                        self._prefetched = False
                    return
        self._send_resume(
            packets_to_resume.continue_packet(
                self.client.vcont, self.client.multiprocess,
                {self._ref(tid): signal for tid, signal in self._pending_signals.items()},
                None if only is None else self._ref(only),
                None if stopped is None else self._ref(stopped),
            ),
            stepping=False,
        )  # fmt: skip

    def step_range(self, tid: int, start: int, end: int) -> None:
        """Thread `tid` steps until its pc leaves [start, end) (`vCont;r`, where the stub
        offers it): a source line in one round trip instead of one per instruction. The
        stop is a STEP, as a single step's."""
        if "r" not in self.client.vcont:
            raise RemoteUnsupported("The stub does not step ranges (vCont;r).")
        self._lift_under(tid)
        packet = packets_to_resume.range_packet(
            self.client.multiprocess, self._ref(tid), start, end
        )
        self._send_resume(packet, stepping=True, within=(start, end))

    def step(self, tid: int) -> None:
        """One instruction of thread `tid`; the others stay stopped. A breakpoint of ours
        under it is out for the step and back at its stop."""
        self._lift_under(tid)
        self._send_resume(self._step_packet(tid), stepping=True)

    def _lift_under(self, tid: int) -> None:
        """Before a step: our breakpoint under the thread out, back in at the stop."""
        self._check_resumable()
        self._stepped_over = self._breakpoint_under(tid)
        if self._stepped_over is not None:
            self.breakpoints.lift(self._stepped_over.address)

    def _step_packet(self, tid: int) -> packets_to_resume.Resume:
        signal = self._pending_signals.get(tid)
        return packets_to_resume.step_packet(
            self.client.vcont, self.client.multiprocess, self._ref(tid), signal
        )

    def _breakpoint_under(self, tid: int) -> StubBreakpoint | None:
        if not self.breakpoints.inserted:
            return None
        pc = int.from_bytes(self.registers.read(self._ref(tid), self._pc), "little")
        return self.breakpoints.inserted.get(pc)

    def _step_over(self, tid: int, point: StubBreakpoint) -> None:
        """Out, one instruction, in again (gdb's way over gdbserver). A step that stops
        for anything but its trap (a signal, a watchpoint, an exit) is kept for `wait`."""
        self.breakpoints.lift(point.address)
        packet = self._step_packet(tid)
        if packet.select is not None:
            self.client.ok(packet.select)
        reply = self.client.resume(packet.body, timeout=self.client.connection.timeout)
        self.registers.clear()
        self.memory.forget()
        self._pending_signals.pop(tid, None)
        # a watchpoint the stepped instruction hit is the stop to report, as gdb does
        plain = (isinstance(reply, stops.SignalStop) and reply.signal == signals.GDB_SIGNAL_TRAP
                 and reply.reason not in ("watch", "rwatch", "awatch"))  # fmt: skip
        if not isinstance(reply, stops.ProcessExit):
            self.breakpoints.restore(point)
        if not plain:
            self._early = reply

    def interrupt(self) -> None:
        """^C: the running program stops and `wait` returns a PAUSE stop."""
        with self._lock:
            if not self._running:
                return
            self._interrupted = True
        self.client.connection.interrupt()

    def stop_all(self) -> None:
        """All-stop: a stop already stops every thread; a running program is interrupted
        and its stop taken."""
        if self._running:
            self.interrupt()
            self.wait()

    def wait(self, timeout: float | None = None) -> Stopped | Exited:
        """The stop of the last resume (None: as long as the program runs); RemoteTimeout
        past `timeout`, RemoteConnectionError when the stub is gone."""
        return self.take(self.next_reply(timeout))

    def next_reply(self, timeout: float | None = None) -> stops.StopReply:
        """The stop reply of the last resume, not yet taken: a waiter thread blocks here
        while the engine's own thread stays free (it may send only ^C meanwhile)."""
        if not self._running:
            raise TargetError("The program is not running.")
        reply, self._early = self._early, None
        return reply if reply is not None else self.client.wait_stop(timeout)

    def stop_arrived(self) -> bool:
        """Whether `next_reply` has the stop at hand (it would not wait)."""
        return self._early is not None or self.client.stop_arrived()

    def prefetch_stop(self, reply: stops.StopReply, *, planned: bool) -> None:
        """The waiter's thread, a stop reply just read: what a reported stop asks for
        (the thread list, the stopped thread's registers) asked at once, in one write the
        stub answers while the stop is handed on; not for a step of a plan (`planned`:
        those take none, the engine asks once the plan ends) unless it left the range
        stepped, nor where acks make each packet wait; once per stop."""
        if not isinstance(reply, stops.SignalStop) or self._prefetched or self.client.connection.acks:
            return
        left = self._left_range(reply)
        if planned and self._stepping and not left:
            return
        self._prefetched = True
        self._prefetch(reply, reply.thread, code=left)  # the stub's Hg thread now (client.stopped_in)

    def _left_range(self, reply: stops.SignalStop) -> bool:
        """A range step that stopped outside its range: its plan reads this frame (a
        call's return address), or reports a new line and steps from there; either way
        what a reported stop asks for is asked now, not in round trips of their own."""
        pc = self.description.get(self.arch.pc)
        if self._range is None or pc is None or pc.number not in reply.registers:
            return False
        start, end = self._range
        return not start <= int.from_bytes(reply.registers[pc.number], "little") < end

    def prefetch_report(self) -> None:
        """The engine's thread, a plan's last stop about to be reported: what
        prefetch_stop asks at other stops, in one write, not three round trips."""
        reply = self.last_reply
        if reply is None or self._prefetched or self._running or self.client.connection.acks:
            return
        self._prefetched = True
        # a bare `g` reads the Hg thread: only where judging the stop selected no other
        held = reply.thread if reply.thread == self.client.general_thread else None
        self._prefetch(reply, held, code=True)

    def _prefetch(self, reply: stops.SignalStop, registers_of: ThreadRef | None, *, code: bool) -> None:
        """Where a step ends or goes on (`code`), the code's line (the next step reads the
        instruction at the pc); the thread list, the registers (where the reply lacks the
        pc or stack pointer) and the stack's line (frame 0's CFA). No two replies of one
        shape side by side: a stub's duplicate is told."""
        if code:
            self._prefetch_line(reply, self.arch.pc)
        self.threads.prefetch()
        # no `g` where the reply carried the pc and stack pointer: frame 0's unwinding most
        # often needs no more, and a register it lacks is read when first asked (regcache),
        # unless the last stop read one (a step in code whose arguments live in registers)
        wanted = self.registers.wanted_again()
        whole = registers_of is not None and (wanted or not self._carries_frame(reply))
        if whole and registers_of is not None:
            self.registers.prefetch(registers_of)
        register = self.description.get(self.arch.sp)
        if register is not None and register.number in reply.registers:
            # the stack's lines the last stop read; after a `g`, fewer bytes than its reply,
            # so that a stub's copy of that reply is not taken for theirs (replyshape.py)
            lines = (self.registers.whole_size - 1) // LINE if whole else STACK_LINES
            self.memory.prefetch_stack(int.from_bytes(reply.registers[register.number], "little"), lines)
        self.client.connection.flush()

    def _carries_frame(self, reply: stops.SignalStop) -> bool:
        names = (self.arch.pc, self.arch.sp)
        registers = [self.description.get(name) for name in names]
        return all(each is not None and each.number in reply.registers for each in registers)

    def _prefetch_line(self, reply: stops.SignalStop, name: str) -> None:
        register = self.description.get(name)
        if register is not None and register.number in reply.registers:
            self.memory.prefetch(int.from_bytes(reply.registers[register.number], "little"))

    def take(self, reply: stops.StopReply) -> Stopped | Exited:
        """Record the stop `next_reply` returned, as the engine's event."""
        return self._take(reply)

    @property
    def running(self) -> bool:
        return self._running

    def drop_pending_signal(self, tid: int) -> None:
        """The signal the last stop reported is not for the program (gdb's `handle nopass`)."""
        self._pending_signals.pop(tid, None)

    def reported(self, stop: Stopped) -> None:
        """`stop` is what the session reports of the last stop reply (a breakpoint's ids
        judged, ...): the last stop from now on, as the live engine's (which inlined calls a
        breakpoint stop hides depends on them)."""
        self._last_stop = stop

    def suspend_state(self) -> SuspendState:
        """What a call into the program changes of the last stop (gdb's
        infcall_suspend_state): the stop, its reply, the signals due to each thread."""
        return SuspendState(self._last_stop, self.last_reply, dict(self._pending_signals))

    def restore_suspend_state(self, state: SuspendState) -> None:
        self._last_stop, self.last_reply = state.stop, state.reply
        self._pending_signals = dict(state.pending_signals)

    def stub_attached(self) -> bool:
        """Whether the stub attached to its process (`qAttached`: 1) or started it (0, or no
        answer): gdb detaches from the one and kills the other when the session ends."""
        try:
            return self.client.ask(b"qAttached:%x" % self._pid if self.client.multiprocess
                                   else b"qAttached") == b"1"  # fmt: skip
        except TargetError:
            return False

    def detach(self) -> None:
        """`D`: the program runs on without us; the stub (not --multi) ends."""
        self._check_live()
        body = b"D;%x" % self._pid if self.client.multiprocess else b"D"
        self.client.ok(body)
        self._exited = Exited(self._pid, None)

    def kill(self) -> None:
        """`vKill` (or `k` where the stub lacks it)."""
        if not self.live:
            return
        try:
            self.client.ok(b"vKill;%x" % self._pid)
        except RemoteUnsupported:
            self.client.connection.send(b"k")  # `k` has no reply
        self._exited = Exited(self._pid, None, signal=9, signal_name="SIGKILL")

    # --- breakpoints and watchpoints ----------------------------------------------
    # LiveProcess has no trap methods yet: the engine's trap layer (ptrace/traps.py) writes
    # int3 itself. Over a stub it will call these instead (Z0 where the stub offers it,
    # our own trap through write_memory where it does not). A thread stopped on one is
    # stepped past it by `resume` and `step`.
    def insert_breakpoint(self, address: int, *, hardware: bool = False,
                          kind: int | None = None, posted: bool = False) -> None:  # fmt: skip
        self._check_live()
        self.breakpoints.insert(address, hardware=hardware, kind=kind, posted=posted)

    def remove_breakpoint(self, address: int, *, hardware: bool = False,
                          kind: int | None = None) -> None:  # fmt: skip
        self._check_live()
        self.breakpoints.remove(address, hardware=hardware, kind=kind)

    def insert_watchpoint(self, address: int, length: int, access: str = "write") -> None:
        """A hardware watchpoint on `length` bytes: `write`, `read` or `access`."""
        self._check_live()
        self.breakpoints.watch(b"Z", address, length, access)

    def remove_watchpoint(self, address: int, length: int, access: str = "write") -> None:
        self._check_live()
        self.breakpoints.watch(b"z", address, length, access)

    # --- inside -----------------------------------------------------------------------
    def _check_resumable(self) -> None:
        self._check_live()
        if self._running:
            raise TargetError("The program is already running.")

    def _send_resume(self, packet: packets_to_resume.Resume, *, stepping: bool,
                     within: tuple[int, int] | None = None) -> None:  # fmt: skip
        if packet.select is not None:
            self.client.ok(packet.select)
        # Running before the packet goes: an interrupt from another thread meanwhile counts.
        with self._lock:
            self._running, self._stepping, self._interrupted = True, stepping, False
            self._prefetched, self._range = False, within
        try:
            self.client.connection.send(packet.body)
        except BaseException:
            with self._lock:
                self._running = False
            raise
        self.client.forget_thread()
        self.registers.clear()
        self.memory.forget()
        self.threads.forget()
        self._pending_signals.clear()

    def _take(
        self, reply: stops.StopReply, *, initial: bool = False, attached: bool = False
    ) -> Stopped | Exited:
        """Record the stop (or exit) a reply tells, as the engine's event."""
        with self._lock:
            self._running = False
            stepping, interrupted = self._stepping, self._interrupted
            self._interrupted = False
        lifted, self._stepped_over = self._stepped_over, None
        if isinstance(reply, stops.ProcessExit):
            self._exited = stops.exited_event(reply, self._pid)
            return self._exited
        if lifted is not None:
            self.breakpoints.restore(lifted)
        if isinstance(reply, (stops.ThreadExit, stops.NoResumed)):
            raise RemoteError(f"A stop reply this all-stop client does not expect: {reply}.")
        self._read_description()
        thread = reply.thread or self.threads.current()
        if thread.pid is not None and thread.pid > 0:
            self._pid = thread.pid
        elif not self._pid:
            self._pid = thread.tid
        self.last_reply = reply
        self.threads.note(thread)
        if reply.thread is not None:
            self.client.stopped_in(reply.thread)
        self.registers.expedite(thread, reply.registers)
        pc = int.from_bytes(self.registers.read(thread, self._pc), "little")
        trap = (
            self.breakpoints.own_trap_before(pc)
            if reply.signal == signals.GDB_SIGNAL_TRAP
            else None
        )
        if trap is not None and not stepping:  # our int3: back to it, as a Z0 stub reports
            pc = trap
            self.registers.write(
                thread, self._pc, pc.to_bytes(self.description[self._pc].size, "little")
            )
            reply = dataclasses.replace(reply, reason="swbreak")
        event = stops.stopped_event(
            reply,
            thread.tid,
            pc=pc,
            stepping=stepping,
            interrupted=interrupted,
            initial=initial,
            attached=attached,
        )
        if event.signal is not None:
            self._pending_signals[thread.tid] = signals.from_host(event.signal)
        self._last_stop = event
        return event


@dataclasses.dataclass(frozen=True, slots=True)
class SuspendState:
    stop: Stopped | None
    reply: stops.SignalStop | None
    pending_signals: dict[int, int]  # tid -> wire signal


def _satisfies_the_protocol(process: RemoteProcess) -> LiveProcess:
    return process  # mypy checks here that RemoteProcess is a LiveProcess
