"""gdb's `x/NFU ADDRESS`: examine memory (printcmd.c's x_command, decode_format, do_examine).

Formats x d u o t a c f s i z (and none: natural), units b h w g; the address is the
expression's value as gdb takes it (an array's or a function's address, a pointer's value);
a bare `x` goes on after the last unit shown with the last format, size and count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aliceserver.adapters.gdbcommands.disasm_text import instruction_text
from aliceserver.adapters.gdbcommands.formats import PRINT_ELEMENTS, string_text, unit_text
from aliceserver.adapters.gdbcommands.selection import ExamineMemory, Selection, Write
from aliceserver.debuggers.base import IDebugger
from aliceserver.errors import AliceError, ProtocolError, TargetError, Unsupported
from aliceserver.regexes import compiled_later

_SIZES = {"b": 1, "h": 2, "w": 4, "g": 8, "a": 8}
_PER_LINE = {1: 8, 2: 8, 4: 4, 8: 2}
_FORMATS = set("xduotacfsiz")
_NUMBER = compiled_later(r"-?(?:0x[0-9a-fA-F]+|\d+)")
_MAX_UNITS = 1 << 16  # a bound on one command's output


@dataclass(frozen=True, slots=True)
class ExamineFormat:
    count: int
    format: str  # "" natural
    size: str  # b h w g a, or "" for strings of bytes


def decode_format(text: str, last_format: str, last_size: str) -> tuple[ExamineFormat, str]:
    """`/NFU` at the start of `text` (after the slash) with gdb's defaults; the rest."""
    match = re.match(r"(-?)(\d*)([a-z]*)[ \t]*", text)
    assert match is not None  # every part may be empty
    count = int(match.group(2) or "1") * (-1 if match.group(1) else 1)
    fmt = size = "?"
    for letter in match.group(3):
        if letter in "bhwg":
            size = letter
        elif letter != "r":  # raw: no pretty printers here anyway
            fmt = letter
    if fmt == "?":
        fmt = last_format if size == "?" or last_format != "i" else "x"
        size = last_size if size == "?" else size
    elif size == "?":
        size = {"a": "a", "c": "b", "s": ""}.get(fmt, last_size)
        if fmt == "f" and last_size not in ("w", "g"):
            size = "g"  # floats are words or giant words
    return ExamineFormat(count, fmt, size), text[match.end() :]


def examine(
    debugger: IDebugger, where: Selection, memory: ExamineMemory, argument: str, write: Write, nibbles: str = "",
    ascii: bool = False,
) -> None:
    """Run `x` with `argument` (what follows `x`: `/4xw buf`, `buf`, or nothing); `nibbles`:
    /t's separator of groups of four digits under `print nibbles on`; `ascii`: x/s under
    `set target-charset ASCII`, bytes past 127 in octal."""
    text = argument.strip()
    fmt = ExamineFormat(memory.count if not text and memory.count > 0 else 1, memory.format or "x", memory.size)
    if text.startswith("/"):
        fmt, text = decode_format(text[1:], memory.format, memory.size)
    if fmt.format and fmt.format not in _FORMATS:
        raise ProtocolError(f'Undefined output format "{fmt.format}".')
    if text:
        memory.next_address = address_of(debugger, where, text)
    if memory.next_address is None:
        raise ProtocolError("Argument required (starting display address).")
    memory.last_unit = None
    try:
        _examine(debugger, where, memory, fmt, write, nibbles, ascii)
    finally:  # gdb remembers the format even when memory ran out on the way
        memory.size = "b" if fmt.format == "s" else fmt.size
        memory.format, memory.count = fmt.format, fmt.count
    if memory.last_unit is not None:  # gdb's $_ and $__
        debugger.set_examined(*memory.last_unit)


def address_of(debugger: IDebugger, where: Selection, expression: str) -> int:
    """The address `x` starts at: gdb's value_as_address of the expression's value."""
    info = debugger.evaluate(expression, where.thread_id, where.level,
                             calls=where.thread_id is not None)  # none stopped: no registers
    if info.error:
        raise ProtocolError(info.value)
    array = info.aggregate and "[" in info.type  # `int [4]`, `void (*[2])(void)`
    function = info.value.startswith("{") and not info.aggregate  # `{int (void)} 0x... <main>`
    if (array or function) and info.address is not None:
        return info.address  # an array decays to its address; a function is its entry
    value = info.value
    if value.startswith("(") and ") " in value:  # `(int *) 0x...`: the value after the type
        value = value[value.index(") ") + 2 :]
    number = _NUMBER().match(value.strip())
    if number is None and (info.value.startswith("(") or info.type.rstrip().endswith("*")):
        # `print address off` shows `(int *) <v>` and a string alone: /x has the number
        number = _NUMBER().match(debugger.evaluate(expression, where.thread_id, where.level, "x",
                                                 calls=where.thread_id is not None).value.strip())
    if number is None:
        raise ProtocolError("Invalid cast.")
    return int(number.group(), 0) % (1 << 64)


def _examine(
    debugger: IDebugger, where: Selection, memory: ExamineMemory, fmt: ExamineFormat, write: Write, nibbles: str,
    ascii: bool,
) -> None:
    address = memory.next_address
    assert address is not None
    count = fmt.count
    if fmt.format in ("s", "i") and count < 0:
        raise Unsupported(f'"x/{count}{fmt.format}" (backwards) is not supported by aliceserver.')
    if abs(count) > _MAX_UNITS:
        raise ProtocolError(f"x: at most {_MAX_UNITS} units at a time")
    if fmt.format == "i":
        _instructions(debugger, where, memory, address, count, write)
    elif fmt.format == "s":
        _strings(debugger, memory, address, count, fmt.size, write, ascii)
    else:
        size = _SIZES[fmt.size or "b"]
        if count < 0:  # backwards: the units before the address, shown forwards
            address, count = address - size * -count, -count
            _units(debugger, memory, address, count, size, fmt.format, write, nibbles)
            memory.next_address = address
        else:
            _units(debugger, memory, address, count, size, fmt.format, write, nibbles)


def address_label(debugger: IDebugger, address: int) -> str:
    """` <symbol+offset>` as gdb's print_address_symbolic puts after an address; "" without one."""
    try:
        symbol = debugger.lookup_address(address)
    except AliceError:
        return ""
    if not symbol.name:
        return ""
    return f" <{symbol.name}{symbol.offset:+d}>" if symbol.offset else f" <{symbol.name}>"  # f.cold: <f-313>


def _read(debugger: IDebugger, address: int, size: int) -> bytes:
    try:
        return debugger.read_memory(address, size)
    except AliceError as error:  # (the engine's names the first byte it could not read)
        known = str(error).startswith("Cannot access memory at address ")
        raise TargetError(str(error) if known else f"Cannot access memory at address {address:#x}") from None


def _units(
    debugger: IDebugger, memory: ExamineMemory, address: int, count: int, size: int, fmt: str, write: Write,
    nibbles: str = "",
) -> None:
    per_line = _PER_LINE[size]

    def label(value: int) -> str:
        return address_label(debugger, value)

    for row in range(0, count, per_line):
        at = address + row * size
        write(f"{at:#x}{label(at)}:")
        for index in range(row, min(count, row + per_line)):
            here = address + index * size
            memory.next_address = here + size  # (gdb's do_examine: past it, read or not)
            write("\t")  # gdb's line shows as far as memory could be read
            data = _read(debugger, here, size)
            value = int.from_bytes(data, "little")
            write(unit_text(value, size, fmt, label, nibbles))
            memory.last_unit = (here, size, data)
        write("\n")


def _strings(
    debugger: IDebugger, memory: ExamineMemory, address: int, count: int, size: str, write: Write, ascii: bool = False
) -> None:
    if size in ("h", "w"):
        raise Unsupported(f'"x/s{size}" (strings of wide characters) is not supported by aliceserver.')
    if size == "g":
        write("warning: Unable to display strings with size 'g', using 'b' instead.\n")
    for _ in range(count):
        write(f"{address:#x}{address_label(debugger, address)}:\t")
        data = bytearray()
        complete = False
        while len(data) < PRINT_ELEMENTS:
            chunk = _readable(debugger, address + len(data), min(64, PRINT_ELEMENTS - len(data)))
            if not chunk:
                break
            end = chunk.find(b"\0")
            if end >= 0:
                data += chunk[:end]
                complete = True
                break
            data += chunk
        if not data and not complete:  # gdb shows the failure as the string's value
            write(f"<error: Cannot access memory at address {address:#x}>\n")  # and stays
        else:
            write(string_text(bytes(data), complete, ascii) + "\n")
            memory.last_unit = (address, 1, None)  # gdb reads no value for $__ here
            address += len(data) + (1 if complete else 0)
        memory.next_address = address


def _readable(debugger: IDebugger, address: int, size: int) -> bytes:
    """As many of `size` bytes at `address` as can be read (a string may end a page)."""
    try:
        return debugger.read_memory(address, size)
    except AliceError:
        if size == 1:
            return b""
        return _readable(debugger, address, size // 2)


def _instructions(
    debugger: IDebugger, where: Selection, memory: ExamineMemory, address: int, count: int, write: Write
) -> None:
    pc = None
    if where.thread_id is not None:
        try:
            frames = debugger.stack_trace(where.thread_id, where.level, 1)
            pc = frames[0].pc if frames else None
        except AliceError:
            pc = None
    try:
        insns = debugger.disassemble(address, count, syntax="att") if count > 0 else []
    except TargetError as error:
        if not str(error).startswith("Cannot access memory"):
            raise
        insns = []
    if count > 0 and not insns:  # gdb writes the address, then fails to read there
        write(f"{'=> ' if address == pc else '   '}{address:#x}{address_label(debugger, address)}:\t")
        memory.next_address = address + 1  # (gdb's next unit: a byte on)
        raise TargetError(f"Cannot access memory at address {address:#x}")
    for insn in insns[:count]:
        mark = "=> " if insn.address == pc else "   "
        write(f"{mark}{insn.address:#x}{address_label(debugger, insn.address)}:\t{instruction_text(insn, lambda at: address_label(debugger, at))}\n")
        memory.next_address = insn.address + insn.size
        memory.last_unit = (insn.address, 1, None)
    if 0 < len(insns) < count:  # the memory ended before them all: gdb fails at the next
        at = insns[-1].address + insns[-1].size
        write(f"{'=> ' if at == pc else '   '}{at:#x}{address_label(debugger, at)}:\t")
        memory.next_address = at + 1
        raise TargetError(f"Cannot access memory at address {at:#x}")
