"""gdb's number_or_range_parser (cli-utils.c) for `undisplay` and `enable/disable display`:
numbers, ranges `N-M` (also `N - M`), `$` values; reading stops quietly at a word that
starts with none of these, and a word with junk after its number reads as 0 (the caller's
warning). Errors in gdb's words: "negative value", "inverted range"."""

from __future__ import annotations

from collections.abc import Iterator

from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.errors import AliceError
from aliceserver.regexes import compiled_later

_HISTORY = compiled_later(r"\$(\$?\d*)(?![\w$])")  # $, $$, $N, $$N (value_from_history_ref)


def numbers(ctx: Context, text: str) -> Iterator[tuple[int, str]]:
    """Each number `text` names, with the text it was read at (gdb's `p` for the warning)."""
    parser = _Parser(ctx, text)
    while not parser.finished():
        at = parser.text[parser.pos :]
        yield parser.next_number(), at


class _Parser:
    def __init__(self, ctx: Context, text: str) -> None:
        self.ctx, self.text, self.pos = ctx, text, 0
        self.last = self.end = 0
        self.end_pos = 0
        self.in_range = False

    def _char(self, pos: int) -> str:
        return self.text[pos] if pos < len(self.text) else ""

    def finished(self) -> bool:
        here, after = self._char(self.pos), self._char(self.pos + 1)
        if not here:
            return True
        if self.in_range:
            return False
        return not (
            here.isdigit() or here == "$" or (here == "-" and (after.isdigit() or after == "$"))
        )

    def next_number(self) -> int:
        if self.in_range:
            self.last += 1
            if self.last == self.end:
                self.pos, self.in_range = self.end_pos, False
            return self.last
        if self._char(self.pos) != "-":
            self.last, self.pos = self._trailer(self.pos, "-")
            here, before, after = (
                self._char(self.pos),
                self._char(self.pos - 1),
                self._char(self.pos + 1),
            )
            if here == "-" and not (before.isspace() and (after.isalpha() or after in ("-", ""))):
                self.end, self.end_pos = self._trailer(self._skip_spaces(self.pos + 1), "")
                if self.end < self.last:
                    raise MiError("inverted range")
                if self.end == self.last:
                    self.pos = self.end_pos
                else:
                    self.in_range = True
            return self.last
        if self._char(self.pos + 1).isdigit():
            raise MiError("negative value")
        self.last, self.pos = self._trailer(self.pos, "")  # -$var
        if self.last < 0:
            raise MiError("negative value")
        return self.last

    def _skip_spaces(self, pos: int) -> int:
        while self._char(pos).isspace():
            pos += 1
        return pos

    def _trailer(self, pos: int, trailer: str) -> tuple[int, int]:
        """gdb's get_number_trailer: the number at `pos` and where reading stopped."""
        negative = self._char(pos) == "-"
        pos += negative
        if self._char(pos) == "$":
            value, pos = self._dollar(pos)
        else:
            start = pos
            while self._char(pos).isdigit():
                pos += 1
            if pos == start:  # no number: the word is skipped
                while self._char(pos) and not self._char(pos).isspace():
                    pos += 1
                value = 0
            else:
                value = int(self.text[start:pos])
        ends = (" ", "\t", "\n", "", *((trailer,) if trailer else ()))
        if self._char(pos) not in ends and not self._char(pos).isspace():
            while self._char(pos) not in ends and not self._char(pos).isspace():
                pos += 1
            value = 0  # trailing junk
        return (-value if negative else value), self._skip_spaces(pos)

    def _dollar(self, pos: int) -> tuple[int, int]:
        history = _HISTORY().match(self.text, pos)
        if history is not None:
            word, end = history.group(0), history.end()
        else:
            end = pos + 1
            while self._char(end).isalnum() or self._char(end) == "_":
                end += 1
            word = self.text[pos:end]
        try:
            shown = self.ctx.session.evaluate(word)
            value = None if shown.error else int(shown.value.split()[0], 0)
        except AliceError as error:
            if history is not None:  # History has not yet reached $10.
                raise MiError(str(error)) from None
            value = None
        except (ValueError, IndexError):
            value = None
        if value is None:
            self.ctx.console("History value must have integer type.\n" if history is not None
                             else "Convenience variable must have integer value.\n")  # fmt: skip
            return 0, end
        return value, end
