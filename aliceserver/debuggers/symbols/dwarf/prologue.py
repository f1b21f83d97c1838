"""Where gdb 13 on x86-64 puts `break FUNCTION`, and where `step` into a function stops.

gdb's rules, in its own order (symtab.c find_function_start_sal / skip_prologue_sal,
amd64-tdep.c amd64_skip_prologue, infrun.c handle_step_into_function):

- A unit gcc (4.5 or later) wrote with location lists is trusted to describe variables
  from the first instruction on ("locations_valid"): `break F` stops at the entry.
- Else the first row of the entry's file marked prologue_end, inside the function.
- Else the code is analysed: a function that does not start with `push %rbp; mov %rsp,%rbp`
  (after an optional stack realignment and endbr64) has no prologue to skip; one that does
  continues after it (and after gcc's varargs spill of xmm registers). Units clang (LLVM)
  wrote are first skipped by their line table alone.
- An address in the middle of a row moves to the next row, if still inside the function.

Stepping into a function uses the code analysis and the move to the next row only.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from typing import Protocol

from elftools.dwarf.enums import ENUM_DW_AT

from aliceserver.debuggers.symbols.dwarf.abbrevs import iter_entries
from aliceserver.debuggers.symbols.dwarf.forms import DATA4, DATA8, LOCLISTX, SEC_OFFSET

_ENDBR64 = b"\xf3\x0f\x1e\xfa"
_PUSH_RBP = 0x55
_MOV_RSP_RBP = (b"\x48\x89\xe5", b"\x48\x8b\xec")
_CODE_WINDOW = 64  # bytes read at an entry: enough for every pattern below


@dataclass(frozen=True, slots=True)
class LineRow:
    """One line-table row of the function's sequence, as the prologue rules read it."""

    address: int
    path: str
    line: int
    flags: int


class FunctionLines(Protocol):
    """What the rules need to know about the code and the line table (link-time addresses)."""

    def row_span(self, address: int) -> tuple[int, int, int] | None:
        """(start, end, line) of the row holding `address` (gdb's find_pc_line)."""
        ...

    def rows_between(self, low: int, high: int) -> list[LineRow]:
        """The rows at addresses in [low, high), in the sequence holding `low`."""
        ...

    def prologue_end(self, low: int, high: int) -> int | None:
        """The address of the first of rows_between(low, high) marked prologue_end whose
        file is the first row's; None when none is."""
        ...

    def read_code(self, address: int, size: int) -> bytes:
        """Up to `size` bytes of code at `address`."""
        ...

    def producer_at(self, address: int) -> str:
        """DW_AT_producer of the unit holding `address` ("" if unknown)."""
        ...

    def has_location_lists_at(self, address: int) -> bool:
        """Whether the unit holding `address` describes a variable with a location list."""
        ...


def breakpoint_address(lines: FunctionLines, low: int, high: int, *, by_line: bool = False) -> int:
    """Where `break FUNCTION` stops in the function [low, high); `by_line`: where
    `break FILE:LINE` of the line at its entry stops (there a trusted unit still honours
    prologue_end: gdb's skip_prologue_sal, not find_function_start_sal)."""
    entry = lines.row_span(low)
    if entry is None:  # no line info: gdb analyses the code alone (a minimal symbol)
        return arch_skip_prologue(lines, low, high)
    producer = lines.producer_at(low)
    trusted = gcc_version(producer) >= (4, 5) and lines.has_location_lists_at(low)
    if trusted and not by_line:
        return low
    marked = _prologue_end(lines, low, high)
    if marked is not None:
        return marked
    if trusted:
        return low
    pc = arch_skip_prologue(lines, low, high)
    span = lines.row_span(pc)
    if span is not None and span[0] != pc and low <= span[1] < high:
        pc = span[1]  # mid-row: the next row, still inside the function
    return max(pc, low)


def step_address(lines: FunctionLines, low: int, high: int) -> int:
    """Where `step` into the function [low, high) stops (gdb's handle_step_into_function)."""
    pc = arch_skip_prologue(lines, low, high)
    span = lines.row_span(pc)
    if span is not None and span[0] != pc and span[1] < high:
        pc = span[1]
    return pc


# The last answer of arch_skip_prologue, with the lines it was read from (kept alive here,
# so never another's at the same id): a function's match asks it twice in a row, for the
# breakpoint's address and for step's (rbreak .: 10,000 matches).
_last_skip: tuple[FunctionLines, int, int, int] | None = None


def arch_skip_prologue(lines: FunctionLines, low: int, high: int) -> int:
    """gdb's amd64_skip_prologue: the address after the frame setup, or `low` if none
    (aarch64_skip_prologue for an AArch64 image)."""
    global _last_skip
    last = _last_skip
    if last is not None and last[0] is lines and last[1] == low and last[2] == high:
        return last[3]
    found = _arch_skip_prologue(lines, low, high)
    _last_skip = (lines, low, high, found)
    return found


def _arch_skip_prologue(lines: FunctionLines, low: int, high: int) -> int:
    # A DebugInfo knows its image; a FunctionLines without one is x86-64's.
    if getattr(getattr(lines, "image", None), "machine", "") == "EM_AARCH64":
        return _aarch64_skip_prologue(lines, low, high)
    producer = lines.producer_at(low)
    if is_llvm(producer):
        after = _skip_using_rows(lines, low, high)
        if after:
            return max(low, after)
    code = lines.read_code(low, _CODE_WINDOW)
    offset = frame_setup_length(code)
    if offset is None:
        return low
    return _skip_xmm_spill(lines, low + offset, low, producer)


def _aarch64_skip_prologue(lines: FunctionLines, low: int, high: int) -> int:
    """gdb's aarch64_skip_prologue: LLVM's units by their line table; else the stack and
    frame setup and the stores of registers into the new frame, up to the end of the
    entry's line (or 128 bytes)."""
    after = _skip_using_rows(lines, low, high)
    if after and is_llvm(lines.producer_at(low)):
        return max(low, after)
    limit = min(after or low + 128, high)
    code = lines.read_code(low, limit - low)
    pc = low
    for offset in range(0, len(code) - len(code) % 4, 4):
        if not _aarch64_prologue_instruction(int.from_bytes(code[offset : offset + 4], "little")):
            break
        pc = low + offset + 4
    return pc


_SP, _FP = 31, 29


def _aarch64_prologue_instruction(word: int) -> bool:
    """Frame setup as aarch64_analyze_prologue goes past it: add/sub (immediate) of sp or
    x29 into sp or x29 (`mov x29, sp` too), and stores (str, stur, stp; general or FP
    registers, any indexing) with sp or x29 as their base."""
    base, target = (word >> 5) & 0x1F, word & 0x1F
    if word & 0x7F800000 in (0x11000000, 0x51000000):  # add/sub (immediate), 32 or 64 bits
        return base in (_SP, _FP) and target in (_SP, _FP)
    if word & 0x3A000000 == 0x28000000 and not word & 0x00400000:  # stp/stnp (not ldp)
        return base in (_SP, _FP)
    if word & 0x3B000000 == 0x39000000 and not word & 0x00C00000:  # str (unsigned offset)
        return base in (_SP, _FP)
    if word & 0x3B200000 == 0x38000000 and not word & 0x00C00000:  # stur, str pre/post-index
        return base in (_SP, _FP) and word & 0xC00 != 0x800  # not sttr (unprivileged)
    return False


def frame_setup_length(code: bytes) -> int | None:
    """Bytes of an entry's stack realignment, endbr64 and `push %rbp; mov %rsp,%rbp`;
    None when the function sets up no frame pointer (gdb: frameless, nothing skipped)."""
    pos = _stack_align_length(code)
    if code[pos : pos + 4] == _ENDBR64:
        pos += 4
    if pos < len(code) and code[pos] == _PUSH_RBP and code[pos + 1 : pos + 4] in _MOV_RSP_RBP:
        return pos + 4
    return None


def _stack_align_length(code: bytes) -> int:
    """Length of main's stack realignment (`lea 8(%rsp),%reg; and $-N,%rsp; pushq -8(%reg)`,
    or the same after `push %reg` with `lea 16(%rsp)`); 0 when the code starts otherwise."""
    buf = code.ljust(18, b"\0")
    if buf[0] & 0xFB == 0x48 and buf[1] == 0x8D and buf[3] == 0x24 and buf[4] == 0x08:
        if buf[2] & 0xC7 != 0x44:
            return 0
        reg = (buf[2] >> 3 & 7) + (8 if buf[0] == 0x4C else 0)
        pos = 5
    else:
        if buf[0] & 0xF8 == 0x50:
            reg, pos = buf[0] & 7, 1
        elif buf[0] & 0xF6 == 0x40 and buf[1] & 0xF8 == 0x50:
            reg, pos = (buf[1] & 7) + (8 if buf[0] & 1 else 0), 2
        else:
            return 0
        lea = buf[pos : pos + 5]
        if lea[0] & 0xFB != 0x48 or lea[1] != 0x8D or lea[3] != 0x24 or lea[4] != 0x10:
            return 0
        if lea[2] & 0xC7 != 0x44 or reg != (lea[2] >> 3 & 7) + (8 if lea[0] == 0x4C else 0):
            return 0
        pos += 5
    if reg in (4, 5):  # neither %rsp nor %rbp
        return 0
    if buf[pos] != 0x48 or buf[pos + 2] != 0xE4 or buf[pos + 1] not in (0x81, 0x83):
        return 0
    pos += 7 if buf[pos + 1] == 0x81 else 4
    pushed = 0
    if buf[pos] == 0xFF:
        pos += 1
    elif buf[pos] & 0xF6 == 0x40 and buf[pos + 1] == 0xFF:
        pushed = 8 if buf[pos] & 1 else 0
        pos += 2
    else:
        return 0
    if buf[pos + 1] != 0xF8 or buf[pos] & 0xF8 != 0x70 or reg != pushed + (buf[pos] & 7):
        return 0
    return pos + 2


def _skip_xmm_spill(lines: FunctionLines, pc: int, start: int, producer: str) -> int:
    """Past gcc's varargs spill (`test %al,%al; je AFTER; movaps %xmm0-7,...(%rbp)`) that
    follows a false prologue end (gcc PR debug/48827; gdb's amd64_skip_xmm_prologue)."""
    first = lines.row_span(start)
    if pc == start or first is None or gcc_version(producer) < (4, 6):
        return pc
    if first[0] != start or pc >= first[1]:
        return pc
    following = lines.row_span(first[1])
    if following is None or following[2] != first[2]:
        return pc
    buf = lines.read_code(following[0] - 4, 4 + 8 * 7)
    if len(buf) < 4 or buf[0] != 0x84 or buf[1] != 0xC0 or buf[2] != 0x74:
        return pc
    offset = 4
    for register in range(8):
        move = buf[offset : offset + 3]
        if len(move) < 3 or move[0] != 0x0F or move[1] != 0x29:
            return pc
        if move[2] & 0x3F != (register << 3 | 5):
            return pc
        if move[2] & 0xC0 == 0x40:
            offset += 4
        elif move[2] & 0xC0 == 0x80:
            offset += 7
        else:
            return pc
    return following[1] if offset - 4 == buf[3] else pc


def _prologue_end(lines: FunctionLines, low: int, high: int) -> int | None:
    """The first row marked prologue_end in the function, among the rows of the entry's
    file (gdb searches that file's line table only)."""
    return lines.prologue_end(low, high)


def _skip_using_rows(lines: FunctionLines, low: int, high: int) -> int:
    """gdb's skip_prologue_using_sal: the end of the entry's line, past rows of smaller
    lines the scheduler moved into the prologue; 0 when it cannot tell."""
    span = lines.row_span(low)
    if span is None or span[2] == 0:
        return 0
    rows = [r for r in lines.rows_between(low, high) if r.line != 0]
    entry_path = next((r.path for r in rows if r.address == span[0]), None)
    at_start = [r for r in rows if r.address == low and r.path == entry_path]
    if len(at_start) >= 2:  # two rows at the entry: a prologue of no instructions
        return low
    start, end, line = span
    if end >= high:
        return 0
    while end < high:
        following = lines.row_span(end)
        if following is None or following[2] == 0 or following[2] >= line:
            break
        path = next((r.path for r in rows if r.address == following[0]), None)
        if path != entry_path:
            break
        start, end, line = following
    return end if end < high else start


_GCC = re.compile(r"GNU \S+ (\d+)\.(\d+)")


def gcc_version(producer: str) -> tuple[int, int]:
    """(major, minor) of a GNU compiler's DW_AT_producer; (-1, -1) for any other."""
    found = _GCC.match(producer)
    return (int(found.group(1)), int(found.group(2))) if found else (-1, -1)


def is_llvm(producer: str) -> bool:
    """Whether clang, rustc or flang (the LLVM back end) wrote the unit."""
    return producer.startswith(("clang ", " F90 Flang "))


# DW_AT_location and DW_AT_frame_base in a form that points into a location list section.
# DW_AT_location only: gdb's has_loclist comes from variables' locations (read.c's
# var_decode_location), never from a function's DW_AT_frame_base.
_LOCATION_ATTRIBUTES = frozenset({ENUM_DW_AT["DW_AT_location"]})
_LIST_FORMS = frozenset({DATA4, DATA8, SEC_OFFSET, LOCLISTX})


def abbreviations_use_location_lists(info: bytes, abbrev: bytes) -> bool | None:
    """Whether a unit (its header at the start of `info`, its abbreviation table at the
    start of `abbrev`) declares a DW_AT_location that is a location list; None when
    `abbrev` ends before the table does. Compilers emit only the abbreviations their DIEs
    use, so this is gdb's has_loclist."""
    osize = 8 if info[:4] == b"\xff\xff\xff\xff" else 4
    pos = 12 if osize == 8 else 4
    if len(info) < pos + 2:
        return False
    (version,) = struct.unpack_from("<H", info, pos)
    forms = _LIST_FORMS if version < 4 else _LIST_FORMS - {DATA4, DATA8}  # constants from v4
    try:
        for _code, _tag, _children, specs in iter_entries(abbrev, 0):
            if any(attribute in _LOCATION_ATTRIBUTES and form in forms for attribute, form, _ in specs):
                return True
    except IndexError:
        return None
    return False
