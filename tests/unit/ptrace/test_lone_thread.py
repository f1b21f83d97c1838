"""_lone_thread (ptrace/live.py): a stopped process of one thread is listed from its stat
file on the caller's thread, with the pc its registers were read with; any other process
is left to the tracer (None)."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import cast

from aliceserver.debuggers.model import ThreadState
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.live import _lone_thread
from aliceserver.debuggers.ptrace.procinfo import thread_name_and_core


@dataclass
class Regs:
    rip: int = 0x401136


@dataclass
class Thread:
    tid: int
    gone: bool = False
    running: bool = False
    regs_valid: bool = True
    regs: Regs = field(default_factory=Regs)


@dataclass
class Process:
    pid: int
    threads: dict[int, Thread]


def _process(*threads: Thread) -> Inferior:
    return cast(Inferior, Process(os.getpid(), {t.tid: t for t in threads}))


def test_one_stopped_thread_is_listed_with_its_name_core_and_pc() -> None:
    tid = threading.get_native_id()  # this test's own thread: its stat file is there
    [info] = _lone_thread(_process(Thread(tid))) or []
    name, _core = thread_name_and_core(os.getpid(), tid)
    assert (info.tid, info.name, info.state, info.pc) == (tid, name, ThreadState.STOPPED, 0x401136)
    assert info.core is not None and info.core >= 0


def test_the_tracer_lists_any_other() -> None:
    tid = threading.get_native_id()
    assert _lone_thread(_process(Thread(tid), Thread(tid + 1))) is None  # several threads
    assert _lone_thread(_process(Thread(tid, running=True))) is None
    assert _lone_thread(_process(Thread(tid, gone=True))) is None
    assert _lone_thread(_process(Thread(tid, regs_valid=False))) is None  # a ptrace call to make
    assert _lone_thread(_process()) is None
