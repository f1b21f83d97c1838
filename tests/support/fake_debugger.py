"""FakeDebugger: a scripted, in-memory IDebugger backend for adapter tests.

It simulates a tiny program (fake_program.py): instruction i sits at CODE_BASE + 4*i and
may start a function, print, call, return, store to memory or wait. Execution is synchronous and
deterministic: `resume` runs to the next breakpoint, watchpoint, waiting instruction or the
end before it returns, posting the events the real engine would post from its own thread.
"""

from __future__ import annotations

import errno
import functools
import logging
import signal as signal_module
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, cast

import aliceserver.debuggers.events as ev
import aliceserver.debuggers.model as m
from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.eventsource import EventSource, Inbox, Subscription
from aliceserver.debuggers.printers.autoload import AutoLoad
from aliceserver.debuggers.sourcepaths import SourcePaths
from aliceserver.debuggers.stepskips import StepSkips
from aliceserver.errors import TargetError
from tests.support.fake_program import (
    CODE_BASE,
    INSN_SIZE,
    NOP4,
    PAGE,
    STACK_SIZE,
    STACK_TOP,
    FakeProgram,
)
from tests.support.fake_source import FakeSourceLevel
from tests.support.fake_trace import FakeCallTracing

logger = logging.getLogger(__name__)

MAX_STEPS = 100_000  # a resume that runs longer is a program that keeps running
_REGISTERS = (
    "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12",
    "r13", "r14", "r15", "rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs", "fs_base",
    "gs_base", "orig_rax",
)  # fmt: skip
_QUIET = frozenset(  # gdb's defaults: no stop, no print, pass
    {signal_module.SIGALRM, signal_module.SIGURG, signal_module.SIGCHLD, signal_module.SIGWINCH}
)
_F = TypeVar("_F", bound=Callable[..., Any])


@dataclass(slots=True)
class _Thread:
    tid: int
    regs: dict[str, int]
    frames: list[tuple[int, int, int]] = field(default_factory=list)  # (return index, sp, fp)


@dataclass(slots=True)
class _Breakpoint:
    id: int
    address: int
    enabled: bool
    temporary: bool
    condition: BreakpointCondition | None
    hit_count: int = 0

    def info(self) -> m.BreakpointInfo:
        return m.BreakpointInfo(
            self.id, self.address, self.enabled, self.temporary, self.hit_count, inserted=True
        )


def _locked(method: _F) -> _F:
    @functools.wraps(method)
    def wrapper(self: FakeDebugger, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return cast(_F, wrapper)


class FakeDebugger(FakeSourceLevel, FakeCallTracing):
    """Every IDebugger method over a simulated program; safe to call from any thread."""

    def __init__(self, program: FakeProgram | None = None) -> None:
        self.catchpoints: frozenset[m.CatchKind] = frozenset()
        self.convenience: dict[str, int] = {}
        self.step_skips: StepSkips | None = None  # the front end's skip list (set_step_skips)
        self._located: dict[int, m.LocationBreakpointInfo] = {}
        self.program = program or FakeProgram.default()
        self._events = EventSource()
        self.source_paths = SourcePaths()
        self.auto_load = AutoLoad()
        insns = self.program.instructions
        self._functions = {insn.function: i for i, insn in enumerate(insns) if insn.function}
        for insn in insns:
            if insn.call and insn.call not in self._functions:
                raise ValueError(f"fake program calls unknown function {insn.call!r}")
        self._lock = threading.RLock()
        self._policies: dict[int, m.SignalPolicy] = {}
        self._next_id = 1
        self._fake_traces = {}
        self._next_trace = 0
        self._reset()

    def _reset(self) -> None:
        self._process: m.ProcessInfo | None = None
        self._held: m.LaunchConfig | None = None  # how a process held for its symbols started
        self._threads: dict[int, _Thread] = {}
        self._memory: dict[int, bytearray] = {}
        self._breakpoints: dict[int, _Breakpoint] = {}
        self._watchpoints: dict[int, m.WatchpointInfo] = {}
        self._running_tid: int | None = None  # set while the program waits to be interrupted
        self._entry_stop = False
        self._watch_hit: tuple[m.WatchpointInfo, bytes, bytes] | None = None

    # --- sessions -------------------------------------------------------------------
    @property
    def process(self) -> m.ProcessInfo | None:
        return self._process

    @_locked
    def launch(self, config: m.LaunchConfig) -> m.ProcessInfo:
        if self.program.path is not None and config.program != self.program.path:
            raise TargetError(f"{config.program}: No such file or directory.", errno=errno.ENOENT)
        held, self._held = self._held, None
        if self._process is not None and held is not None:  # a process held for its symbols
            if replace(held, symbols_only=True, relocated=False) == replace(config, symbols_only=True) and not config.symbols_only:
                return self._announce(self._process)  # taken as this start's (IDebugger.launch)
            self.kill()
        info = self._start(m.ProcessInfo(self.program.pid, config.program, attached=False))
        self._held = config if config.symbols_only else None
        self._entry_stop = config.stop_on_entry
        return info

    @_locked
    def attach(self, pid: int) -> m.ProcessInfo:
        if pid <= 0:
            raise TargetError(f"no process {pid}", errno=errno.ESRCH, pid=pid)
        info = self._start(m.ProcessInfo(pid, self.program.path or "fake", attached=True))
        self._stop(ev.StopReason.PAUSE, self._threads[pid])
        return info

    @_locked
    def detach(self) -> None:
        self._require_process()
        self._reset()

    @_locked
    def kill(self) -> None:
        pid = self._require_process().pid
        self._finish(ev.Exited(pid, None, signal_module.SIGKILL, "SIGKILL"))

    @_locked
    def close(self) -> None:
        if self._process is not None and self._process.attached:
            self.detach()
        elif self._process is not None:
            self.kill()

    @_locked
    def write_core(self, path: str | None = None) -> m.CoreWritten:
        if self._process is None:
            raise TargetError("You can't do that without a process to debug.")  # gdb's gcore
        raise TargetError("Target does not support core file generation.")  # gdb's words

    # --- execution ------------------------------------------------------------------
    def is_running(self) -> bool:
        return self._running_tid is not None

    @_locked
    def resume(self, thread_id: int | None = None, *, jumped: int | None = None) -> None:
        process = self._require_stopped()
        thread = self._thread(process.pid if thread_id is None else thread_id)
        self._post(ev.Continued(thread_id, all_threads=thread_id is None))
        if self._entry_stop:
            self._entry_stop = False
            self._stop(ev.StopReason.ENTRY, thread)
            return
        for step in range(MAX_STEPS):
            if step > 0 and self._hit_breakpoints(thread):
                return
            if step > 0 and self.program.instructions[self._pc(thread)].blocks:
                break
            if not self._execute(thread) or self._report_watch(thread):
                return
        self._running_tid = thread.tid  # waits or loops until interrupted

    @_locked
    def step_instruction(self, thread_id: int) -> None:
        self._require_stopped()
        thread = self._thread(thread_id)
        self._entry_stop = False
        self._post(ev.Continued(thread_id, all_threads=False))
        if self._execute(thread) and not self._report_watch(thread):
            self._stop(ev.StopReason.STEP, thread)

    @_locked
    def interrupt(self) -> None:
        self._require_process()
        if self._running_tid is not None:  # else already stopped: nothing to do
            thread = self._threads[self._running_tid]
            self._running_tid = None
            self._stop(ev.StopReason.PAUSE, thread)

    @_locked
    def threads(self, *, details: bool = True) -> list[m.ThreadInfo]:
        if self._process is None:
            return []
        name = (self._process.program.rsplit("/", 1)[-1] or "fake")[:15]  # like /proc comm
        running = self.is_running()
        state = m.ThreadState.RUNNING if running else m.ThreadState.STOPPED
        return [
            m.ThreadInfo(t.tid, name, state, None if running else t.regs["rip"])
            for t in self._threads.values()
        ]

    @_locked
    def set_signal_policy(self, signal: int, policy: m.SignalPolicy) -> None:
        self._check_signal(signal)
        self._policies[signal] = policy

    @_locked
    def set_catchpoint(self, kind: m.CatchKind, enabled: bool) -> None:
        # The simulated program neither forks nor execs: remembered, never triggered.
        self.catchpoints = self.catchpoints | {kind} if enabled else self.catchpoints - {kind}

    def set_convenience(self, name: str, number: int) -> None:
        self.convenience[name] = number  # the front end's $bpnum...: no evaluator here

    def set_step_skips(self, skips: StepSkips | None) -> None:
        self.step_skips = skips  # remembered: the simulated program's steps enter no function

    def signal_policy(self, signal: int) -> m.SignalPolicy:
        self._check_signal(signal)
        if signal in self._policies:
            return self._policies[signal]
        if signal in _QUIET:
            return m.SignalPolicy(stop=False, pass_to_program=True, print_=False)
        return m.SignalPolicy(pass_to_program=signal not in (signal_module.SIGINT, signal_module.SIGTRAP))

    # --- breakpoints and watchpoints ------------------------------------------------
    @_locked
    def insert_breakpoint(
        self,
        address: int,
        *,
        temporary: bool = False,
        enabled: bool = True,
        condition: BreakpointCondition | None = None,
    ) -> m.BreakpointInfo:
        self._require_process()
        self._region(address, 1)  # an int3 needs mapped memory
        bp = _Breakpoint(self._new_id(), address, enabled, temporary, condition)
        self._breakpoints[bp.id] = bp
        return bp.info()

    @_locked
    def remove_breakpoint(self, breakpoint_id: int) -> None:
        self._breakpoint(breakpoint_id)
        del self._breakpoints[breakpoint_id]

    @_locked
    def enable_breakpoint(self, breakpoint_id: int, enabled: bool) -> m.BreakpointInfo:
        bp = self._breakpoint(breakpoint_id)
        bp.enabled = enabled
        return bp.info()

    @_locked
    def breakpoints(self) -> list[m.BreakpointInfo]:
        return [bp.info() for bp in self._breakpoints.values()]

    @_locked
    def insert_watchpoint(
        self, address: int, size: int, kind: m.WatchKind, scope: m.WatchScope | None = None
    ) -> m.WatchpointInfo:
        self._require_process()
        if scope is not None:
            raise TargetError("the simulated program has no frames: a watchpoint cannot be scoped to one")
        if size not in (1, 2, 4, 8) or address % size:
            raise TargetError(f"a hardware watchpoint cannot cover {size} bytes at {address:#x}")
        if len(self._watchpoints) >= 4:
            raise TargetError("all 4 debug registers are in use", errno=errno.ENOSPC)
        value = self.read_memory(address, size)
        wp = m.WatchpointInfo(self._new_id(), address, size, kind, True, 0, value)
        self._watchpoints[wp.id] = wp
        return wp

    @_locked
    def remove_watchpoint(self, watchpoint_id: int) -> None:
        if self._watchpoints.pop(watchpoint_id, None) is None:
            raise TargetError(f"no watchpoint number {watchpoint_id}")

    @_locked
    def watchpoints(self) -> list[m.WatchpointInfo]:
        return list(self._watchpoints.values())

    # --- state ----------------------------------------------------------------------
    @_locked
    def read_registers(self, thread_id: int) -> m.Registers:
        self._require_stopped()
        return m.Registers(dict(self._thread(thread_id).regs))

    @_locked
    def write_register(self, thread_id: int, name: str, value: int) -> None:
        self._require_stopped()
        thread = self._thread(thread_id)
        if name not in thread.regs:
            raise TargetError(f"invalid register `{name}'")
        if name == "rip" and self._index(value) is None:
            raise TargetError(f"the fake program has no instruction at {value:#x}")
        thread.regs[name] = value % 2**64

    def read_vector_registers(self, thread_id: int) -> m.VectorRegisters:
        self._require_stopped()
        self._thread(thread_id)
        control = {"fctrl": 0x37F, "fstat": 0, "ftag": 0, "fop": 0, "mxcsr": 0x1F80}
        return m.VectorRegisters(control, (bytes(10),) * 8, (bytes(16),) * 16, (bytes(32),) * 16)

    @_locked
    def read_memory(self, address: int, size: int) -> bytes:
        base, data = self._region(address, size)
        return bytes(data[address - base : address - base + size])

    @_locked
    def write_memory(self, address: int, data: bytes) -> None:
        base, region = self._region(address, len(data))
        region[address - base : address - base + len(data)] = data

    # --- symbols --------------------------------------------------------------------
    @_locked
    def modules(self) -> list[m.Module]:
        return [] if self._process is None else [self._main_module(self._process)]

    @_locked
    def lookup_address(self, address: int) -> m.SymbolLocation:
        module = self._process.program if self._process is not None else None
        index = self._index(address, aligned=False)
        if index is None:
            names = [name for name, at in self.program.symbols.items() if at == address]
            if names:
                return m.SymbolLocation(address, names[0], 0, module)
            return m.SymbolLocation(address, None, 0, None)
        start = max((i for i in self._functions.values() if i <= index), default=None)
        if start is None:
            return m.SymbolLocation(address, None, 0, module)
        name = self.program.instructions[start].function
        return m.SymbolLocation(address, name, address - self._address(start), module)

    def lookup_symbol(self, name: str) -> int:
        if name in self._functions:
            return self._address(self._functions[name])
        if name in self.program.symbols:
            return self.program.symbols[name]
        raise TargetError(f'No symbol "{name}" in current context.')

    @_locked
    def backtrace(self, thread_id: int, limit: int = 256) -> list[m.Frame]:
        self._require_stopped()
        thread = self._thread(thread_id)
        frames = [(thread.regs["rip"], thread.regs["rsp"], thread.regs["rbp"])]
        frames += [(self._address(i), sp, fp) for i, sp, fp in reversed(thread.frames)]
        return [
            m.Frame(level, pc, sp, fp, self.lookup_address(pc))
            for level, (pc, sp, fp) in enumerate(frames[:limit])
        ]

    @_locked
    def disassemble(
        self, address: int, count: int, *, syntax: str = "intel"
    ) -> list[m.Instruction]:
        self._region(address, 1)
        index = self._index(address, aligned=False)
        result: list[m.Instruction] = []
        while index is not None and index < len(self.program.instructions) and len(result) < count:
            insn, at = self.program.instructions[index], self._address(index)
            mnemonic, operands = "nop", "dword ptr [rax]" if syntax == "intel" else "(%rax)"
            target = None
            if insn.call:
                mnemonic, operands = "call", hex(self.lookup_symbol(insn.call))
                target = self.lookup_address(self.lookup_symbol(insn.call))
            elif insn.ret:
                mnemonic, operands = "ret", ""
            raw = self.read_memory(at, INSN_SIZE)
            symbol = self.lookup_address(at)
            result.append(m.Instruction(at, INSN_SIZE, raw, mnemonic, operands, symbol, target))
            index += 1
        return result

    def post(self, event: ev.Event) -> None:
        """For tests: put any event on the queue, as if the engine had produced it."""
        self._post(event)

    # --- the simulation -------------------------------------------------------------
    def _start(self, info: m.ProcessInfo) -> m.ProcessInfo:
        if self._process is not None:
            raise TargetError("a process is already being debugged", pid=self._process.pid)
        code = bytearray(NOP4 * len(self.program.instructions))
        code += bytes(-len(code) % PAGE)
        self._memory = {CODE_BASE: code, STACK_TOP - STACK_SIZE: bytearray(STACK_SIZE)}
        self._memory.update({base: bytearray(data) for base, data in self.program.data.items()})
        for n in range(self.program.threads):
            regs = dict.fromkeys(_REGISTERS, 0)
            regs.update(rip=CODE_BASE, rsp=STACK_TOP - 0x100 - n * 0x2000, eflags=0x246)
            regs.update(cs=0x33, ss=0x2B, orig_rax=2**64 - 1)
            self._threads[info.pid + n] = _Thread(info.pid + n, regs)
        self._process = info
        return self._announce(info)

    def _announce(self, info: m.ProcessInfo) -> m.ProcessInfo:
        self._post(ev.ProcessStarted(info.pid, info.program, info.attached))
        self._post(ev.ModuleLoaded(self._main_module(info)))
        for tid in self._threads:
            self._post(ev.ThreadStarted(tid))
        return info

    def _execute(self, thread: _Thread) -> bool:
        """Run one instruction of `thread`; False when the program exited or crashed."""
        index = self._pc(thread)
        insn, regs = self.program.instructions[index], thread.regs
        overflow = insn.call is not None and regs["rsp"] - 16 < STACK_TOP - STACK_SIZE
        if insn.fault or overflow:  # the pc stays on the faulting instruction, as on Linux
            where = regs["rsp"] - 8 if overflow else 0
            fault = m.FaultInfo(where, 1, "address not mapped to object")
            self._stop(ev.StopReason.CRASH, thread, signal=signal_module.SIGSEGV,
                       signal_name="SIGSEGV", description="Segmentation fault", fault=fault)
            return False
        if insn.output:
            self._post(ev.Output("stdout", insn.output))
        following = index + 1
        if insn.call:  # push the return address and the frame pointer, like call + push rbp
            thread.frames.append((following, regs["rsp"], regs["rbp"]))
            for value in (self._address(following), regs["rbp"]):
                regs["rsp"] -= 8
                self.write_memory(regs["rsp"], value.to_bytes(8, "little"))
            regs["rbp"] = regs["rsp"]
            following = self._functions[insn.call]
            self._traced_entry(thread.tid, self._address(following), thread.frames[-1][1])
        elif insn.ret:
            if not thread.frames:
                return self._exit()
            following, regs["rsp"], regs["rbp"] = thread.frames.pop()
            self._traced_return(thread.tid, regs["rsp"], regs["rax"])
        if insn.store:
            self._store(*insn.store)
        if following >= len(self.program.instructions):
            return self._exit()
        regs["rip"] = self._address(following)
        return True

    def _store(self, address: int, data: bytes) -> None:
        # Debug registers fire on any write that touches the watched bytes, changed or not.
        hits = [
            (wp, self.read_memory(wp.address, wp.size))
            for wp in self._watchpoints.values()
            if wp.enabled and address < wp.address + wp.size and wp.address < address + len(data)
        ]
        self.write_memory(address, data)
        if hits:
            wp, before = hits[0]
            after = self.read_memory(wp.address, wp.size)
            self._watchpoints[wp.id] = hit = replace(wp, hit_count=wp.hit_count + 1, value=after)
            self._watch_hit = (hit, before, after)

    def _report_watch(self, thread: _Thread) -> bool:
        if self._watch_hit is None:
            return False
        wp, old, new = self._watch_hit
        self._watch_hit = None
        self._stop(ev.StopReason.WATCHPOINT, thread, (wp.id,), watch_old=old, watch_new=new)
        return True

    def _hit_breakpoints(self, thread: _Thread) -> bool:
        here = [bp for bp in self._breakpoints.values() if bp.address == thread.regs["rip"]]
        stopping: list[_Breakpoint] = []
        for bp in here:
            if bp.enabled:
                bp.hit_count += 1  # a false condition still counts the hit (see base.py)
                if bp.condition is None or self._condition(bp, thread.tid):
                    stopping.append(bp)
        for bp in stopping:
            if bp.temporary:
                del self._breakpoints[bp.id]
                self._post(ev.BreakpointChanged(bp.info(), removed=True))
        if stopping:
            self._stop(ev.StopReason.BREAKPOINT, thread, tuple(bp.id for bp in stopping))
        return bool(stopping)

    def _condition(self, bp: _Breakpoint, tid: int) -> bool:
        assert bp.condition is not None
        try:
            return bool(bp.condition(tid))
        except Exception:
            logger.exception("condition of breakpoint %d failed; stopping", bp.id)
            return True

    def _stop(
        self, reason: ev.StopReason, thread: _Thread, ids: tuple[int, ...] = (), **extra: Any
    ) -> None:
        address = thread.regs["rip"]
        self._post(ev.Stopped(reason, thread.tid, breakpoint_ids=ids, address=address, **extra))

    def _exit(self) -> bool:
        assert self._process is not None
        self._finish(ev.Exited(self._process.pid, self.program.exit_code))
        return False

    def _finish(self, exited: ev.Exited) -> None:
        for tid in self._threads:
            self._post(ev.ThreadExited(tid))
        self._post(exited)
        self._reset()

    # --- helpers --------------------------------------------------------------------
    def _post(self, event: ev.Event) -> None:
        self._events.put(event)

    def post_event(self, event: ev.Event) -> None:
        """Fake-only: publish `event` as if the engine had (tests of a front end's handling)."""
        self._events.put(event)

    def subscribe(self, into: Inbox | None = None) -> Subscription:
        return self._events.subscribe(into)

    def _new_id(self) -> int:
        ident, self._next_id = self._next_id, self._next_id + 1
        return ident

    def _address(self, index: int) -> int:
        return CODE_BASE + INSN_SIZE * index

    def _index(self, address: int, aligned: bool = True) -> int | None:
        offset = address - CODE_BASE
        if offset < 0 or offset // INSN_SIZE >= len(self.program.instructions):
            return None
        return offset // INSN_SIZE if not aligned or offset % INSN_SIZE == 0 else None

    def _pc(self, thread: _Thread) -> int:
        index = self._index(thread.regs["rip"])
        assert index is not None  # write_register keeps rip on an instruction
        return index

    def _function_symbols(self) -> list[m.FunctionSymbol]:
        if self._process is None:
            return []
        return [
            m.FunctionSymbol(name, self._address(index), INSN_SIZE, None, self._process.program)
            for name, index in self._functions.items()
        ]

    def _main_module(self, info: m.ProcessInfo) -> m.Module:
        size = INSN_SIZE * len(self.program.instructions)
        high = CODE_BASE + max(PAGE, size + -size % PAGE)
        return m.Module(info.program, base=0, low=CODE_BASE, high=high, is_main=True)

    def _require_process(self) -> m.ProcessInfo:
        if self._process is None:
            raise TargetError("The program is not being run.")
        return self._process

    def _require_stopped(self) -> m.ProcessInfo:
        process = self._require_process()
        if self._running_tid is not None:
            raise TargetError("The program is running; interrupt it first.", pid=process.pid)
        return process

    def _thread(self, tid: int) -> _Thread:
        if tid not in self._threads:
            raise TargetError(f"no thread {tid}", errno=errno.ESRCH, pid=tid)
        return self._threads[tid]

    def _breakpoint(self, ident: int) -> _Breakpoint:
        if ident not in self._breakpoints:
            raise TargetError(f"no breakpoint number {ident}")
        return self._breakpoints[ident]

    def _region(self, address: int, size: int) -> tuple[int, bytearray]:
        for base, data in self._memory.items():
            if base <= address and address + size <= base + len(data):
                return base, data
        pid = self._process.pid if self._process else None
        raise TargetError(f"Cannot access memory at address {address:#x}", errno=errno.EIO, pid=pid)

    def _check_signal(self, signal: int) -> None:
        if not 1 <= signal <= 64:
            raise TargetError(f"no signal number {signal}", errno=errno.EINVAL)
