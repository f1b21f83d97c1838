"""The packets that resume a program: `vCont` with an action per thread where the stub
offers it, else the old `c`/`s` (with `Hc` naming the thread to step). A signal the last
stop reported rides with its thread (`C`/`S`), as ptrace passes it to the program."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from aliceserver.debuggers.remote.threadids import ThreadRef


@dataclass(frozen=True, slots=True)
class Resume:
    body: bytes
    select: bytes | None = None  # an `Hc` to send (and see OK) first


def continue_packet(vcont: frozenset[str], multiprocess: bool, signals: Mapping[ThreadRef, int],
                    only: ThreadRef | None, stopped: ThreadRef | None) -> Resume:  # fmt: skip
    """Every thread on, or only `only`; `signals` by thread, the wire numbers to deliver."""
    if "c" not in vcont:  # `c` resumes every thread, with the stopped thread's signal
        signal = signals.get(stopped) if stopped is not None else None
        return Resume(b"C%02x" % signal if signal is not None else b"c")
    actions = [
        b"C%02x:" % signal + ref.encode(multiprocess)
        for ref, signal in signals.items()
        if only is None or ref == only
    ]
    actions.append(b"c" if only is None else b"c:" + only.encode(multiprocess))
    return Resume(b"vCont;" + b";".join(actions))


def step_packet(
    vcont: frozenset[str], multiprocess: bool, ref: ThreadRef, signal: int | None
) -> Resume:
    """One instruction of thread `ref`; the others stay stopped."""
    wire = ref.encode(multiprocess)
    if "s" not in vcont:
        return Resume(b"S%02x" % signal if signal is not None else b"s", select=b"Hc" + wire)
    return Resume(b"vCont;" + (b"S%02x:" % signal + wire if signal is not None else b"s:" + wire))


def range_packet(multiprocess: bool, ref: ThreadRef, start: int, end: int) -> Resume:
    """Thread `ref` steps while its pc stays in [start, end) (`vCont;r`)."""
    return Resume(b"vCont;r%x,%x:" % (start, end) + ref.encode(multiprocess))
