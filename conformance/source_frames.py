"""Frames of both sides grouped by physical frame and compared (source_diff.py; see
README.md: inline frames join the next real frame, tail call frames are dropped)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from aliceserver.debuggers.model import StackFrame
from tests.support.gdb import GdbFrame


@dataclass(frozen=True)
class FrameRecord:
    """One physical frame: the names and positions gdb or the engine give it."""

    functions: tuple[str, ...]
    positions: tuple[tuple[str, int], ...]  # (basename, line)
    pc: int | None
    signal_trampoline: bool = False

    def describe(self) -> str:
        if self.signal_trampoline:
            return "<signal handler called>"
        name = "|".join(self.functions) or "??"
        where = "|".join(f"{file}:{line}" for file, line in self.positions) or "-"
        return f"{name}@{where}"


def normalize_function(name: str | None) -> str | None:
    """glibc's internal aliases (`__GI___qsort_r`) name the same function as `qsort_r`."""
    if name is None:
        return None
    for prefix in ("__GI_", "__libc_"):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return name.lstrip("_") or name


def _base(path: str | None) -> str | None:
    return os.path.basename(path) if path else None


def gdb_groups(gdb_frames: Sequence[GdbFrame]) -> list[FrameRecord]:
    """gdb's frames grouped by physical frame (inline frames join the next real frame)."""
    groups: list[FrameRecord] = []
    names: list[str] = []
    positions: list[tuple[str, int]] = []
    for frame in gdb_frames:
        if frame.kind == "tailcall":
            continue
        if frame.function:
            names.append(frame.function)
        file = _base(frame.file)
        if file and frame.line:
            positions.append((file, frame.line))
        if frame.kind == "inline":
            continue
        groups.append(
            FrameRecord(tuple(names), tuple(positions), frame.pc, frame.kind == "sigtramp")
        )
        names, positions = [], []
    if names or positions:
        groups.append(FrameRecord(tuple(names), tuple(positions), None))
    return groups


def engine_record(frame: StackFrame) -> FrameRecord:
    names = (frame.function,) if frame.function else ()
    file = _base(frame.source.path) if frame.source else None
    positions = ((file, frame.source.line),) if frame.source and file else ()
    return FrameRecord(names, positions, frame.pc, frame.signal_trampoline)


def engine_groups(trace: Sequence[StackFrame]) -> list[FrameRecord]:
    """The engine's frames grouped as gdb_groups does (inline frames join the next one)."""
    groups: list[FrameRecord] = []
    names: list[str] = []
    positions: list[tuple[str, int]] = []
    for frame in trace:
        if frame.tail_call:  # dropped on both sides, as gdb_groups drops gdb's
            continue
        record = engine_record(frame)
        names += record.functions
        positions += record.positions
        if frame.inlined:
            continue
        groups.append(FrameRecord(tuple(names), tuple(positions), frame.pc, frame.signal_trampoline))
        names, positions = [], []
    return groups


def frame_agrees(gdb: FrameRecord, engine: FrameRecord) -> bool:
    if gdb.signal_trampoline or engine.signal_trampoline:
        # gdb prints no name for it (`<signal handler called>`): being one is what counts.
        return gdb.signal_trampoline == engine.signal_trampoline and gdb.pc == engine.pc
    if gdb.pc is not None and engine.pc is not None and gdb.pc != engine.pc:
        return False
    gdb_names = {normalize_function(n) for n in gdb.functions}
    engine_names = {normalize_function(n) for n in engine.functions}
    if gdb_names and not (engine_names & gdb_names):
        return False
    if gdb.positions and not set(engine.positions) & set(gdb.positions):
        return False
    return True


def cut_at_main(engine: Sequence[FrameRecord], outermost: FrameRecord | None) -> list[FrameRecord]:
    """The engine's frames up to the one gdb's backtrace ends with (gdb stops at main)."""
    if outermost is None:
        return list(engine)
    for index, frame in enumerate(engine):
        if frame_agrees(outermost, frame) and set(frame.functions) & set(outermost.functions):
            return list(engine[: index + 1])
    return list(engine)
