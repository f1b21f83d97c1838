"""The subcommand words of gdb's `enable`, `disable` and `delete`, read as gdb's lookup_cmd
reads them: a unique prefix names one (`disab disp 1` is `disable display 1`, `enable o 2`
`enable once 2`), an exact name or alias wins over longer ones (`delete tr`), a word that
begins none is the command's own argument (`delete 2`), and a prefix of several is gdb's
error (`Ambiguous enable command "d 1": delete, display.`)."""

from __future__ import annotations

from aliceserver.adapters.mi.registry import MiError, ambiguous_names
from aliceserver.regexes import compiled_later

# gdb 13's subcommands and their aliases (`help enable`, `help disable`, `help delete`)
_NAMES: dict[str, tuple[str, ...]] = {
    "enable": ("breakpoints", "count", "delete", "display", "frame-filter", "mem", "once",
               "pretty-printer", "probes", "type-printer", "unwinder", "xmethod"),
    "disable": ("breakpoints", "display", "frame-filter", "mem", "pretty-printer", "probes",
                "type-printer", "unwinder", "xmethod"),
    "delete": ("bookmark", "breakpoints", "checkpoint", "display", "mem", "tr", "tracepoints",
               "tvariable"),
}  # fmt: skip
_ALIASES = {"tr": "tracepoints"}
_WORD = compiled_later(r"[\w.-]*")  # gdb's valid_cmd_char_p


def resolve(verb: str, text: str) -> tuple[str | None, str]:
    """The subcommand `text` starts with (its full name) and the text after its word; None
    and `text` when the first word begins none."""
    text = text.lstrip()
    match = _WORD().match(text)
    word = match.group(0) if match is not None else ""
    names = _NAMES[verb]
    if not word:
        return None, text
    if word in names:
        return _ALIASES.get(word, word), text[len(word) :].lstrip()
    found = [name for name in names if name.startswith(word)]
    if not found:
        return None, text
    if len(found) > 1:
        raise MiError(f'Ambiguous {verb} command "{text}": {ambiguous_names(found)}.')
    return _ALIASES.get(found[0], found[0]), text[len(word) :].lstrip()
