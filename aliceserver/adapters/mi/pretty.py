"""gdb's `set print pretty on` layout of a value printed on one line.

The engine prints values as gdb does with `print pretty off`; this lays such a text out as
gdb does with it on: each member of a struct (a printer's child, a map's `[key] = value`)
on a line of its own, indented two spaces per level, arrays (and a printer's array-hinted
children) kept on one line with their struct elements laid out inside. The text is read
by its punctuation: strings and character literals are skipped whole, and a `{...}` block
is a struct's when one of its elements at its own level has `name = value`.

A value gdb could print only in part (a library container read from unreadable memory,
inside a struct) ends at `<error reading variable: ...>` with the blocks it had opened left
open; the layout closes them there with nothing shown, as gdb's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_CLOSERS = {"{": "}", "(": ")", "[": "]"}
_NO_FIELDS = "<No data fields>"
_READ_ERROR = "<error reading variable: "
# How a struct's element starts: `name = ` (a printer's child may be `get() = `), `static
# name = `, `<Base> = `, a map's `[key] = `; a printer's text may say `, ` (`std::vector of
# length 2, capacity 2 = {1, 2}`), which starts no member.
_MEMBER = re.compile(r"(?:\[.*?\]|<.*?>|(?:static )?[^\s=,{}<\[\"'][^\s,{}\"']*) = ")


@dataclass(frozen=True, slots=True)
class _Block:
    start: int  # index of `{`
    end: int  # index just past its `}`


def pretty_text(text: str, type_name: str, classes: Sequence[str] = ()) -> str:
    """`text` laid out as gdb's print pretty on; `type_name` is the value's class (its
    `members of T:` line after base classes), `classes` those of each struct the text shows
    with base classes and then fields, in the order the text opens them
    (VariableInfo.member_classes). Where they do not tell a class with base classes below
    the top level (the text does not say it), the text is left as it is."""
    for names in ([*classes], None) if classes else (None,):
        try:
            layout = _Layout(text, type_name, names)
            laid_out = layout.value(0, len(layout.text), 0)
        except _Unknown:
            continue
        if not names:  # every name taken, by a block that needs one
            return laid_out
    return text


class _Unknown(Exception):
    """A layout that needs what the text does not say."""


class _Layout:
    def __init__(self, text: str, type_name: str, classes: list[str] | None = None) -> None:
        self.text = text
        self.type_name = type_name
        self.classes = classes  # the classes still to name, or None: type_name's alone
        self.cut: set[int] = set()  # the `}`s added where gdb's print stopped (shown as nothing)
        self._close_cut_blocks()

    def _close_cut_blocks(self) -> None:
        """Close the blocks left open by a print cut short at its error, with `}`s after
        the error; two such errors leave the text unlaid (which blocks each ended is not
        in the text)."""
        found = self.text.find(_READ_ERROR)
        if found < 0:
            return
        depth, i, error_end = 0, 0, -1
        while i < len(self.text):
            ch = self.text[i]
            if i == found:
                if error_end >= 0:
                    raise _Unknown
                error_end = self.text.find(">", i) + 1
                if error_end == 0:
                    raise _Unknown
                i, found = error_end, self.text.find(_READ_ERROR, error_end)
                continue
            if ch in "\"'":
                i = self._skip_literal(i)
                continue
            depth += 1 if ch == "{" else -1 if ch == "}" else 0
            i += 1
        if depth > 0:
            self.cut = set(range(error_end, error_end + depth))
            self.text = self.text[:error_end] + "}" * depth + self.text[error_end:]

    def value(self, start: int, end: int, level: int) -> str:
        """The text from `start` to `end` (one value) with each block in it laid out."""
        out: list[str] = []
        i = start
        while i < end:
            block = self._next_block(i, end)
            if block is None:
                out.append(self.text[i:end])
                break
            out.append(self.text[i : block.start])
            out.append(self.block(block, level))
            i = block.end
        return "".join(out)

    def block(self, block: _Block, level: int) -> str:
        elements = self._members(self._elements(block.start + 1, block.end - 1))
        closer = "" if block.end - 1 in self.cut else "}"
        if not any(self._is_member(s, e) for s, e in elements):  # an array: one line
            return "{" + ", ".join(self.value(s, e, level + 1) for s, e in elements) + closer
        bases = [(s, e) for s, e in elements if self._is_base(s, e)]
        no_fields = self.text[elements[-1][0] : elements[-1][1]] == _NO_FIELDS
        class_name = self.type_name
        if bases and not no_fields:  # gdb names the class before its members
            if self.classes is not None:
                if not self.classes:
                    raise _Unknown
                class_name = self.classes.pop(0)  # (its own, before those inside it)
            elif level > 0:
                raise _Unknown  # not in the text
        inner, outer = "  " * (level + 1), "  " * level
        parts = ["{"]
        for index, (s, e) in enumerate(elements):
            shown = self.value(s, e, level + 1)
            if (s, e) in bases:
                parts.append(f"\n{inner}{shown}, ")
            elif shown == _NO_FIELDS:  # after the base classes, on their line
                parts.append(shown)
            else:
                if index == len(bases) and bases:
                    parts.append(f"\n{inner}members of {class_name}:")
                parts.append(("," if index > len(bases) else "") + f"\n{inner}{shown}")
        if closer:
            parts.append("}" if no_fields else f"\n{outer}}}")
        return "".join(parts)

    # --- reading the text ------------------------------------------------------------
    def _skip_literal(self, i: int) -> int:
        """Past the string or character literal starting at `i` (a quote)."""
        quote = self.text[i]
        i += 1
        while i < len(self.text) and self.text[i] != quote:
            i += 2 if self.text[i] == "\\" else 1
        return i + 1

    def _match(self, i: int) -> int:
        """Past the bracket closing the one at `i`."""
        stack = [_CLOSERS[self.text[i]]]
        i += 1
        while i < len(self.text) and stack:
            ch = self.text[i]
            if ch in "\"'":
                i = self._skip_literal(i)
                continue
            if ch in _CLOSERS:
                stack.append(_CLOSERS[ch])
            elif ch == stack[-1]:
                stack.pop()
            i += 1
        return i

    def _past_base_name(self, i: int, end: int) -> int:
        """Past `<Name<A, B>>` at `i` where ` = ` follows it (a base class's element), else
        past the `<` alone."""
        depth, j = 0, i
        while j < end:
            depth += 1 if self.text[j] == "<" else -1 if self.text[j] == ">" else 0
            j += 1
            if depth == 0:
                return j if self.text.startswith(" = ", j) else i + 1
        return i + 1

    def _next_block(self, i: int, end: int) -> _Block | None:
        while i < end:
            ch = self.text[i]
            if ch in "\"'":
                i = self._skip_literal(i)
            elif ch == "{":
                return _Block(i, self._match(i))
            elif ch in "([":
                i = self._match(i)
            else:
                i += 1
        return None

    def _elements(self, start: int, end: int) -> list[tuple[int, int]]:
        """The `, `-separated elements between `start` and `end`, at that level only."""
        found: list[tuple[int, int]] = []
        i = first = start
        while i < end:
            ch = self.text[i]
            if ch in "\"'":
                i = self._skip_literal(i)
                continue
            if ch in _CLOSERS:
                i = self._match(i)
                continue
            if ch == "<" and i == first:  # a base class's `<Name<A, B>> = `: its `, ` too
                i = self._past_base_name(i, end)
                continue
            if self.text.startswith(", ", i):
                found.append((first, i))
                i = first = i + 2
                continue
            i += 1
        if first < end:
            found.append((first, end))
        return found

    def _members(self, elements: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """A struct's elements, each from a member's start to the next's (a printer's text
        that says `, ` is not two members); an array's as they are."""
        starts = [bool(_MEMBER.match(self.text, s, e)) for s, e in elements]
        if not any(starts):
            return elements
        merged: list[tuple[int, int]] = []
        for (s, e), starts_member in zip(elements, starts, strict=True):
            if merged and not starts_member and self.text[s] not in "{<":  # `{...}`: anonymous
                merged[-1] = (merged[-1][0], e)
            else:
                merged.append((s, e))
        return merged

    def _head(self, start: int, end: int) -> str:
        """An element's text before its first bracket or literal."""
        i = start
        while i < end and self.text[i] not in "\"'{":
            i = self._match(i) if self.text[i] in "([" else i + 1
        return self.text[start:i]

    def _is_member(self, start: int, end: int) -> bool:
        return _MEMBER.match(self.text, start, end) is not None

    def _is_base(self, start: int, end: int) -> bool:
        head = self._head(start, end)
        return head.startswith("<") and head.endswith("> = ")
