"""Which inlined calls a stop hides (gdb's skip_inline_frames, inline-frame.c).

At the first instruction of inlined calls gdb shows their caller at the call site: from the
innermost call out, each call starting at the pc is hidden, until one a user breakpoint
stopped in "for this inline function" (stopped_by_user_bp_inline_frame): a breakpoint
location's symbol is the function it was set on by name (`break main`: main, so the
inlined `bump` starting at main's breakpoint address stays hidden and the stop is shown in
main, as gdb 13 shows it), and for a line or an address the innermost function there (then
nothing is hidden).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dieattrs import die_name

_SINGLE_COLON = re.compile(r"(?<!:):(?!:)")
_LINE = re.compile(r"[+-]?\d+")


@dataclass(frozen=True, slots=True)
class InlineCall:
    """One inlined call around a pc."""

    id: int  # stable for the copy (its DIE offset)
    ranges: tuple[tuple[int, int], ...]  # runtime [low, high) of its code
    starts_here: bool  # the pc enters its code (gdb's block_starting_point_at)
    call_site: tuple[str, int] | None  # (file, line) of the call


def hidden_calls(
    calls: Sequence[InlineCall], dies: Sequence[DIE], symbols: Sequence[str | None] | None
) -> int:
    """How many of `calls` (outermost first, `dies` theirs) the stop hides; `symbols`: the
    stopping user breakpoints' location symbols (None for a stop no breakpoint made)."""
    hidden = 0
    for call, die in zip(reversed(calls), reversed(dies), strict=False):
        if not call.starts_here:
            break
        name = die_name(die)
        if symbols is not None and any(s is None or _same_function(s, name) for s in symbols):
            break
        hidden += 1
    return hidden


def location_symbol(spec: str, function: str | None) -> str | None:
    """A breakpoint location's symbol as gdb's linespec sets it: the function of a spec
    naming one (`main`, `file.c:main`, `-function main`), else None (a line, an address,
    a label: the innermost function at the location, never hidden)."""
    text = spec.strip()
    if not text or text.startswith("*") or function is None:
        return None
    if text.startswith("-"):
        words = text.split()
        named = "-function" in words and "-line" not in words and "-label" not in words
        return function if named else None
    parts = _SINGLE_COLON.split(text)
    if _LINE.fullmatch(parts[-1].strip()):
        return None
    if len(parts) > 1 and not ("." in parts[0] or "/" in parts[0]):
        return None  # FUNCTION:LABEL
    return function


def _same_function(symbol: str, name: str | None) -> bool:
    """Whether the location's function is the inlined call's (`ns::f(int)` and `f`)."""
    if name is None:
        return False
    bare = symbol.split("(", 1)[0].strip()
    return bare == name or bare.endswith("::" + name)
