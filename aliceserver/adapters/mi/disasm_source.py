"""gdb's gdb_disassembly (gdb/disasm.c): a range [low, high) as assembly only, or grouped by
source line in the deprecated source-centric order (`/m`, MI modes 1 and 3) or in address
order (`/s`, MI modes 4 and 5, `--source`). MI and the console render the same groups."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.disasm import Line, disassemble_range
from aliceserver.debuggers.model import LineRange, SourcePosition
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession


class SourceMode(Enum):
    NONE = "none"
    DEPRECATED = "deprecated"  # gdb's DISASSEMBLY_SOURCE_DEPRECATED: source order
    SOURCE = "source"  # gdb's DISASSEMBLY_SOURCE: address order


@dataclass
class SourceGroup:
    """One src_and_asm_line: a source line (none: no line info for its code) and the
    instructions shown under it; `before` and `after` are console-only text around it."""

    path: str | None
    line: int
    insns: list[Line] = field(default_factory=list)
    before: str = ""
    after: str = ""


def gdb_disassembly(
    session: MiSession, low: int, high: int, how_many: int, mode: SourceMode
) -> list[Line] | list[SourceGroup]:
    """A plain list (assembly only: no source mode, or no line info at `low`) or groups."""
    first = _line_range(session, low)
    if mode is SourceMode.NONE or first is None:
        return _dump(session, low, high, how_many)
    if mode is SourceMode.DEPRECATED:
        return _source_order(session, low, high, how_many)
    return _address_order(session, low, high, how_many)


def _dump(session: MiSession, low: int, high: int, how_many: int) -> list[Line]:
    """gdb's dump_insns: instructions from `low` while they start before `high`."""
    lines = disassemble_range(session, low, high)
    return lines if how_many < 0 else lines[:how_many]


def _line_range(session: MiSession, address: int) -> LineRange | None:
    try:
        return session.debugger.line_range(address)
    except AliceError:
        return None


def _rows(session: MiSession, low: int, high: int) -> list[LineRange]:
    """The line-table rows starting in [low, high), in address order."""
    rows: list[LineRange] = []
    row = _line_range(session, low)
    pc = low if row is not None and row.start == low else (row.end if row is not None else high)
    while pc < high:
        row = _line_range(session, pc)
        if row is None or row.end <= pc:
            break
        if row.source.line != 0:
            rows.append(LineRange(pc, row.end, row.source))
        pc = row.end
    return rows


def _table(session: MiSession, low: int) -> tuple[list[tuple[int, int]], int, str | None]:
    """gdb's line table of the file of `low`'s line (every entry, several at one address:
    gcc's 26, 27, 28 at main's first pc at -O2), the index of its first entry at `low` or
    after, and the file; nothing when it has none."""
    first = _line_range(session, low)
    if first is None:
        return [], 0, None
    try:
        table = session.debugger.line_table(first.source.path)
    except AliceError:
        return [], 0, None
    return table, bisect_left([address for address, _ in table], low), first.source.path


def _table_rows(session: MiSession, low: int, high: int) -> list[LineRange]:
    """do_mixed_source_and_assembly_deprecated's entries in [low, high): one per line-table
    entry to the next one's address (empty where several share an address), duplicates
    and end markers left out; the last entry of the table ends where its line does."""
    table, index, path = _table(session, low)
    if path is None:
        return _rows(session, low, high)
    rows: list[LineRange] = []
    while index < len(table) - 1 and table[index][0] < high:
        (pc, line), following = table[index], table[index + 1]
        if (pc, line) != following and line != 0:
            rows.append(LineRange(pc, following[0], SourcePosition(path, line)))
        index += 1
    if index == len(table) - 1 and table[index][0] < high and table[index][1] != 0:
        last = _line_range(session, table[index][0])
        pc = table[index][0]
        rows.append(LineRange(pc, last.end if last is not None else pc, SourcePosition(path, table[index][1])))
    return rows


def _source_order(session: MiSession, low: int, high: int, how_many: int) -> list[SourceGroup]:
    """do_mixed_source_and_assembly_deprecated: each row's whole code (not cut at `high`),
    sorted by line; lines skipped between two shown ones come as groups without code."""
    rows = sorted(_table_rows(session, low, high), key=lambda row: (row.source.line, row.start))
    groups: list[SourceGroup] = []
    next_line = shown = 0
    for index, row in enumerate(rows):
        line, path = row.source.line, row.source.path
        if line >= next_line:
            if next_line != 0:
                groups += [SourceGroup(path, skipped) for skipped in range(next_line, line)]
            groups.append(SourceGroup(path, line))
            next_line = line + 1
        insns = _dump(session, row.start, row.end, how_many)
        groups[-1].insns += insns
        shown += len(insns)
        if index == len(rows) - 1 or rows[index + 1].source.line > line:
            groups[-1].after = "\n"
        if 0 <= how_many <= shown:
            break
    return groups


def _address_order(session: MiSession, low: int, high: int, how_many: int) -> list[SourceGroup]:
    """do_mixed_source_and_assembly: the code in address order, a group per change of line;
    source lines without code of their own before a group are shown (as groups without
    code) when no later code belongs to them."""
    insns = disassemble_range(session, low, high)
    rows: dict[int, LineRange | None] = {}

    def row_at(address: int) -> LineRange | None:
        if address not in rows:
            rows[address] = _line_range(session, address)
        return rows[address]

    with_code = set()
    for insn in insns:
        row = row_at(insn.insn.address)
        if row is not None:
            with_code.add((row.source.path, row.source.line))
    # gdb's first_le: the table's first entry at `low` or after (the `{` line gcc gives the
    # same address as the first statement's)
    table, first, _path = _table(session, low)
    first_line = table[first][1] if first < len(table) and table[first][0] < high and table[first][1] else None
    groups: list[SourceGroup] = []
    last_path: str | None = None
    last_line = shown = 0
    index = 0
    while index < len(insns):
        pc = insns[index].insn.address
        row = row_at(pc)
        path, line = (row.source.path, row.source.line) if row is not None else (None, 0)
        preceding: range = range(0)
        new_line = False
        if last_line == 0 or path != last_path:
            new_line = True
            if last_line == 0 and first_line is not None and first_line < line:
                preceding = range(first_line, line)
        elif path is not None:
            if line > last_line + 1:
                lowest = line - 1
                while lowest > last_line and (path, lowest) not in with_code:
                    lowest -= 1
                if lowest < line - 1:
                    preceding = range(lowest + 1, line)
            new_line = line != last_line
        if new_line:
            before = "\n" if pc > low else ""
            if path != last_path or last_line == 0:
                before += f"{session.frames.file_name(path) if path is not None else 'unknown'}:\n"
            for skipped in preceding:
                groups.append(SourceGroup(path, skipped, before=before))
                before = ""
            groups.append(SourceGroup(path, line, before=before))
        end = min(row.end, high) if row is not None and row.end else pc + 1
        taken = 0
        while index < len(insns) and insns[index].insn.address < end and (how_many < 0 or taken < how_many):
            groups[-1].insns.append(insns[index])
            index += 1
            taken += 1
        shown += taken
        if 0 <= how_many <= shown or taken == 0:
            break
        last_path, last_line = path, line
    return groups
