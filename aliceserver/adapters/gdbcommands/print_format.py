"""The /FMT of print, call and output as gdb 13 reads it (printcmd.c's decode_format and
validate_format): a count, size letters and format letters (the last one wins), `r` for
raw; a size letter, a count other than 1 and /i are gdb's errors. print's and call's `/r`
or `/` alone take their last format again (gdb's last_format); output's take none."""

from __future__ import annotations

import re
from dataclasses import dataclass

from aliceserver.errors import ProtocolError

# The letters gdb's print_formatted knows; any other lowercase letter is read as a format
# too, and the value fails at printing (`$1 = Undefined output format "k".`).
KNOWN = frozenset("xduotacfsz")


@dataclass(frozen=True, slots=True)
class PrintFormat:
    letter: str  # "" none
    raw: bool  # /r: no pretty printers
    expression: str  # what follows the format


def decode_print_format(text: str, command: str, last: str = "") -> PrintFormat:
    """`text` (print's argument after its options) with its /FMT read; `last` is the
    format a print without a format letter takes (gdb's last_format, "" for output)."""
    if not text.startswith("/"):
        return PrintFormat("", False, text)
    at = 1
    count = 1
    if text[at : at + 1] == "-":
        count, at = -1, at + 1
    digits = re.match(r"[0-9]*", text[at:])
    assert digits is not None  # it may be empty
    if digits.group():
        count *= int(digits.group())
    at += len(digits.group())
    letter = size = ""
    raw = False
    while at < len(text) and "a" <= text[at] <= "z":
        if text[at] in "bhwg":
            size = text[at]
        elif text[at] == "r":
            raw = True
        else:
            letter = text[at]
        at += 1
    if not letter:
        letter = "x" if size and last == "i" else last
    if size:
        raise ProtocolError(f'Size letters are meaningless in "{command}" command.')
    if count != 1:
        raise ProtocolError(f'Item count other than 1 is meaningless in "{command}" command.')
    if letter == "i":
        raise ProtocolError(f'Format letter "i" is meaningless in "{command}" command.')
    return PrintFormat(letter, raw, text[at:].lstrip())
