"""gdb's `dump`, `append` and `restore` (cli-dump.c): memory or a value's bytes written to a
file, raw or in the text formats of the GNU binary utilities (srec, ihex, verilog, written
byte for byte as BFD writes them); a raw file or an srec file written back to memory.

gdb reads the arguments as it does: the file name and the start address end at a blank
(an expression there cannot have one), the stop address and the value take the rest of
the line. tekhex, and restoring other object files, are refused."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from aliceserver.adapters.mi.console_find import MemoryValues
from aliceserver.adapters.mi.dump_formats import FORMATS, read_srec
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply, ambiguous_names
from aliceserver.errors import AliceError

_DUMP_HELP = {  # gdb's help_list of each prefix: (subcommand, its one-line doc)
    "dump": [("binary", "Write target code/data to a raw binary file."),
             ("ihex", "Write target code/data to an intel hex file."),
             ("memory", "Write contents of memory to a raw binary file."),
             ("srec", "Write target code/data to an srec file."),
             ("tekhex", "Write target code/data to a tekhex file."),
             ("value", "Write the value of an expression to a raw binary file."),
             ("verilog", "Write target code/data to a verilog hex file.")],
    "append": [("binary", "Append target code/data to a raw binary file."),
               ("memory", "Append contents of memory to a raw binary file."),
               ("value", "Append the value of an expression to a raw binary file.")],
}
_ARTICLE = {"binary": "a raw binary", "ihex": "an ihex", "srec": "an srec", "tekhex": "a tekhex",
            "verilog": "a verilog hex"}


def _help_list(prefix: str, rows: list[tuple[str, str]]) -> str:
    lines = [f"List of {prefix} subcommands:\n\n"]
    lines += [f"{prefix} {name} -- {doc}\n" for name, doc in rows]
    lines.append(f'\nType "help {prefix}" followed by {prefix} subcommand name for full documentation.\n'
                 'Type "apropos word" to search for commands related to "word".\n'
                 'Type "apropos -v word" for full documentation of commands related to "word".\n'
                 "Command name abbreviations are allowed if unambiguous.\n")
    return "".join(lines)


def _rows(prefix: str) -> list[tuple[str, str]]:
    words = prefix.split()
    if len(words) == 1:
        return _DUMP_HELP[words[0]]
    verb = "Append" if words[0] == "append" else "Write"
    into = _ARTICLE[words[1]] + " file"
    return [("memory", f"{verb} contents of memory to {into}."),
            ("value", f"{verb} the value of an expression to {into}.")]


def _subcommand(ctx: Context, prefix: str, text: str) -> tuple[str, str] | None:
    """The subcommand `text` starts with (a unique prefix) and the rest; None after gdb's
    list of subcommands, printed where none is given."""
    rows = _rows(prefix)
    word, _, rest = text.strip().partition(" ")
    if not word:
        ctx.console(_help_list(prefix, rows))
        return None
    names = [name for name, _doc in rows]
    matches = [name for name in names if name == word] or [name for name in names if name.startswith(word)]
    if len(matches) != 1:
        asked = text.strip()
        if len(matches) > 1:
            raise MiError(f'Ambiguous {prefix} command "{asked}": {ambiguous_names(sorted(matches))}.')
        raise MiError(f'Undefined {prefix} command: "{asked}".  Try "help {prefix}".')
    return matches[0], rest.strip()


def _word(text: str) -> tuple[str, str]:
    """gdb's scan_expression / scan_filename: up to the first blank, and the rest."""
    match = re.match(r"(\S*)\s*(.*)", text, re.S)
    assert match is not None
    return match.group(1), match.group(2)


def _path(ctx: Context, name: str) -> str:
    name = os.path.expanduser(name)
    return name if os.path.isabs(name) else os.path.join(ctx.session.inferior.cwd, name)


def _memory(ctx: Context, text: str) -> tuple[str, bytes, int]:
    """`FILE START STOP`: the file, the bytes and where they were."""
    name, text = _word(text)
    if not name:
        raise MiError("Missing filename.")
    if not text:
        raise MiError("Missing start address.")
    first, text = _word(text)
    if not text:
        raise MiError("Missing stop address.")
    values = MemoryValues(ctx)
    low, high = values.address(first), values.address(text)
    if high <= low:
        raise MiError("Invalid memory address range (start >= end).")
    return name, values.read(low, high - low), low


def _value(ctx: Context, text: str, raw: bool) -> tuple[str, bytes, int]:
    """`FILE EXPR`: the file, the value's bytes and its address (0 where it has none)."""
    name, text = _word(text)
    if not name:
        raise MiError("Missing filename.")
    if not text:
        raise MiError("No value to dump.")
    data, address = MemoryValues(ctx).located(text)
    if address is None and not raw:
        ctx.log("warning: value is not an lval: address assumed to be zero\n")
    return name, data, address or 0


def _write(ctx: Context, name: str, fmt: str, append: bool, data: bytes, address: int) -> None:
    path = _path(ctx, name)
    if fmt == "binary":
        try:
            with open(path, "ab" if append else "wb") as out:
                out.write(data)
        except OSError as error:
            raise MiError(f"{name}: {error.strerror}.") from None
        return
    if fmt == "tekhex":
        raise MiError('"dump tekhex" is not supported by aliceserver.')
    try:
        out = open(path, "wb")
    except OSError as error:
        raise MiError(f"Failed to open {name}: {error.strerror}.") from None
    with out:
        try:
            out.write(FORMATS[fmt](name, address, data))
        except ValueError as error:  # BFD's complaint, then the close that fails
            ctx.log(f"BFD: {name} {error}\n")
            ctx.log(f'warning: cannot close "{name}": bad value\n')


def _dump_with(ctx: Context, prefix: str, fmt: str, text: str, append: bool) -> Reply:
    found = _subcommand(ctx, prefix, text)
    if found is None:
        return None
    kind, rest = found
    name, data, address = _memory(ctx, rest) if kind == "memory" else _value(ctx, rest, fmt == "binary")
    _write(ctx, name, fmt, append, data, address)
    return None


def _command(verb: str) -> Callable[[Context, str], Reply]:
    def handler(ctx: Context, text: str) -> Reply:
        found = _subcommand(ctx, verb, text)
        if found is None:
            return None
        kind, rest = found
        if kind in ("memory", "value"):  # raw binary, the default
            return _dump_with(ctx, verb + " binary", "binary", f"{kind} {rest}", verb == "append")
        return _dump_with(ctx, f"{verb} {kind}", kind, rest, verb == "append")

    return handler


def _restore_arguments(ctx: Context, text: str) -> tuple[str, bool, int, int, int]:
    name, text = _word(text)
    if not name:
        raise MiError("Missing filename.")
    binary = text.startswith("binary")
    if binary:
        text = text[len("binary"):].lstrip()
    values = MemoryValues(ctx)
    offset = start = end = 0
    if text:
        first, text = _word(text)
        offset = values.address(first) if binary else values.integer(first)
    if text:
        first, text = _word(text)
        start = values.integer(first)
        if text:
            end = values.integer(text)
            if end <= start:
                raise MiError("Start must be less than end.")
    return name, binary, offset, start, end


def _restore(ctx: Context, text: str) -> Reply:
    if ctx.session.inferior.process is None:  # gdb asks for a process before the arguments
        raise MiError("You can't do that without a process to debug.")
    name, binary, offset, start, end = _restore_arguments(ctx, text.strip())
    path = _path(ctx, name)
    try:
        with open(path, "rb") as source:
            data = source.read()
    except OSError as error:
        raise MiError(f"Failed to open {name}: {error.strerror}" + ("" if binary else ".")) from None
    if binary:
        _restore_binary(ctx, name, data, offset, start, end)
        return None
    sections = read_srec(data)
    if sections is None:
        if data[:4] == b"\x7fELF" or data[:1] in (b":", b"%"):
            raise MiError('"restore" of an object, ihex or tekhex file is not supported by aliceserver.')
        raise MiError(f"'{name}' is not a recognized file format.")
    for number, (address, contents) in enumerate(sections, start=1):
        _restore_section(ctx, f".sec{number}", address, contents, offset, start, end)
    return None


def _restore_binary(ctx: Context, name: str, data: bytes, offset: int, start: int, end: int) -> None:
    length = len(data)
    if length <= start:
        raise MiError(f"Start address is greater than length of binary file {name}.")
    if end and end < length:
        length = end
    length -= start
    low = offset + start
    ctx.console(f"Restoring binary file {name} into memory ({low:#x} to {low + length:#x})\n")
    _put(ctx, low, data[start:start + length])


def _restore_section(ctx: Context, name: str, address: int, data: bytes, offset: int, start: int,
                     end: int) -> None:  # fmt: skip
    """gdb's restore_one_section: the part of the section inside START..END, moved by OFFSET."""
    top = address + len(data)
    if top <= start or (end > 0 and address >= end):
        ctx.console(f"skipping section {name}...\n")
        return
    skip = start - address if address < start else 0
    count = len(data) - skip - (top - end if end > 0 and top > end else 0)
    line = f"Restoring section {name} ({address:#x} to {top:#x})"
    if offset or start or end:
        low = address + skip + offset
        line += f" into memory ({low:#x} to {low + count:#x})"
    ctx.console(line + "\n")
    _put(ctx, address + skip + offset, data[skip:skip + count])


def _put(ctx: Context, address: int, data: bytes) -> None:
    try:
        ctx.session.debugger.write_memory(address % (1 << 64), data)
    except AliceError:  # gdb's safe_strerror of target_write_memory's -1
        ctx.log("warning: restore: memory write failed ((undocumented errno -1)).\n")


def register(registry: CliRegistry) -> None:
    registry.add("dump", _command("dump"))
    registry.add("append", _command("append"))
    registry.add("restore", _restore)
