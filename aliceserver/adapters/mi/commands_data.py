"""Data commands: expressions, disassembly, memory and registers (-data-*)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.commands_symbols import shown_address
from aliceserver.adapters.mi.disasm import Line, address_of, function_at, range_holding
from aliceserver.adapters.mi.disasm_source import SourceGroup, SourceMode, gdb_disassembly
from aliceserver.adapters.mi.frames import (
    evaluation_failure,
    hex16,
    printer_errors,
    whole_value_failure,
)
from aliceserver.adapters.mi.output import Results, Value
from aliceserver.adapters.mi.parser import getopt
from aliceserver.adapters.mi.register_writes import write_register_values
from aliceserver.adapters.mi.registers import (
    described_value,
    evaluates_registers,
    format_value,
    numbered_contents,
    numbered_values,
    read_raw,
    register_names,
)
from aliceserver.adapters.mi.registry import Context, MiError, MiRegistry, Reply
from aliceserver.debuggers.target import NOT_RUNNING
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession


_REFERENCE = re.compile(r"(@0x[0-9a-f]+): ")  # a reference's text: its address, then its referent


def _evaluate_expression(ctx: Context, args: list[str]) -> Reply:
    if not args:
        raise MiError("-data-evaluate-expression: Usage: -data-evaluate-expression expression")
    session = ctx.session
    tid = level = None
    if ctx.thread is not None or ctx.frame is not None:
        tid, level = session.context_frame(ctx.thread, ctx.frame)
    info = session.evaluate(" ".join(args), tid=tid, level=level)
    failure = whole_value_failure(session, " ".join(args), info) or evaluation_failure(info)
    if failure is not None:
        raise MiError(failure)
    unchecked = info.value == "<optimized out>" and info.printer_errors  # gdb's common_val_print:
    for line in info.printer_errors if unchecked else printer_errors(info):  # the printer runs
        ctx.log(line)
    shown = "" if unchecked else session.display(info)
    if info.type.endswith("&") and not info.printer:  # gdb's deref_ref off here: the address alone
        found = _REFERENCE.match(shown)
        shown = found.group(1) if found else "" if session.settings.get("print address") == "off" else shown
    return [("value", shown)] if shown else []  # gdb's field_stream: an empty value is no field


# --- disassembly ---------------------------------------------------------------------------
def _insn_tuple(line: Line, opcodes: bool) -> dict[str, Value]:
    entry: dict[str, Value] = {"address": hex16(line.insn.address)}
    if line.func:
        entry["func-name"] = line.func
        entry["offset"] = str(line.offset)
    if opcodes:
        entry["opcodes"] = " ".join(f"{b:02x}" for b in line.insn.raw)
    entry["inst"] = line.text
    return entry


def _groups(ctx: Context, groups: list[SourceGroup], opcodes: bool) -> Value:
    """Each group as a src_and_asm_line (gdb's print_source_lines fields, then the code)."""
    frames = ctx.session.frames
    out: list[tuple[str, Value]] = []
    for group in groups:
        entry: dict[str, Value] = {}
        if group.path is not None:
            entry.update(line=str(group.line), file=frames.file_name(group.path), fullname=frames.fullname(group.path))
        entry["line_asm_insn"] = [_insn_tuple(line, opcodes) for line in group.insns]
        out.append(("src_and_asm_line", entry))
    return Results(out, as_list=True)


_USAGE = ("-data-disassemble: Usage: ( -f filename -l linenum [-n howmany] | -s startaddr -e endaddr | -a addr ) "
          "[ --opcodes mode ] [ --source ] [ [--] mode ].")
_MODE_SOURCE = {1: SourceMode.DEPRECATED, 3: SourceMode.DEPRECATED, 4: SourceMode.SOURCE, 5: SourceMode.SOURCE}


def _data_disassemble(ctx: Context, args: list[str]) -> Reply:
    """gdb's mi_cmd_disassemble: a function (by file and line, or by an address in it) or an
    address range, in one of the modes 0-5 (0 when none is given) or with --opcodes/--source."""
    session = ctx.session
    options = getopt("data-disassemble", args, valued="selnfa", long=("opcodes=", "source"))
    values = {name: address_of(session, options.get(name) or "") for name in "sea" if options.has(name)}
    seen = {name for name in "flnsea" if options.has(name)}
    if seen not in ({"f", "l"}, {"f", "l", "n"}, {"s", "e"}, {"a"}) or len(options.rest) > 1:
        raise MiError(_USAGE)
    mode = _leading_int(options.rest[0]) if options.rest else 0
    if not 0 <= mode <= 5:
        raise MiError("-data-disassemble: Mode argument must be in the range 0-5.")
    opcodes_mode = options.get("opcodes") if options.has("opcodes") else None
    if mode != 0 and (options.has("source") or opcodes_mode is not None):
        raise MiError("-data-disassemble: --opcodes and --source can only be used with mode 0")
    if opcodes_mode not in (None, "none", "display", "bytes"):
        raise MiError("-data-disassemble: unknown value for -opcodes argument")
    session.ensure_symbols()
    if not session.has_symbols():
        raise MiError("No symbol table is loaded.  Use the \"file\" command.")
    opcodes = mode in (2, 3, 5) if opcodes_mode is None else opcodes_mode != "none"
    source = SourceMode.SOURCE if options.has("source") else _MODE_SOURCE.get(mode, SourceMode.NONE)
    how_many = _leading_int(options.get("n") or "-1")
    if "s" in values:
        low, high = values["s"], values["e"]
    else:
        if "a" in values:
            address = values["a"]
        else:
            address = _line_address(session, options.get("f") or "", _leading_int(options.get("l") or ""))
        held = range_holding(session, address)  # of a function in pieces: that piece alone
        try:
            lines = function_at(session, address) if held is None else []
        except MiError:
            lines = []
        if not lines and held is None:
            raise MiError("-data-disassemble: No function contains specified address")
        low, high = held or (lines[0].insn.address, lines[-1].insn.address + lines[-1].insn.size)
    shown = gdb_disassembly(session, low, high, how_many, source)
    groups = [group for group in shown if isinstance(group, SourceGroup)]
    if groups:
        return [("asm_insns", _groups(ctx, groups, opcodes))]
    return [("asm_insns", [_insn_tuple(line, opcodes) for line in shown if isinstance(line, Line)])]


def _leading_int(text: str) -> int:
    """C's atoi: the leading number, 0 when there is none."""
    match = re.match(r"\s*[-+]?\d+", text)
    return int(match.group()) if match else 0


def _line_address(session: MiSession, file: str, line: int) -> int:
    """gdb's lookup_symtab then find_line_pc."""
    try:
        found = session.debugger.line_start(file, line)
    except AliceError:
        raise MiError("-data-disassemble: Invalid filename.") from None
    if found is None:
        raise MiError("-data-disassemble: Invalid line number")
    return shown_address(session)(found.start)  # before run: its link-time address, as gdb


# --- memory --------------------------------------------------------------------------------
def _read_memory_bytes(ctx: Context, args: list[str]) -> Reply:
    options = getopt("data-read-memory-bytes", args, valued="o")
    if len(options.rest) != 2:
        raise MiError("Usage: [ -o OFFSET ] ADDR LENGTH.")
    session = ctx.session
    address = address_of(session, options.rest[0]) + int(options.get("o") or "0", 0)
    length = _number(session, options.rest[1])
    try:
        data = session.debugger.read_memory(address, length)
    except AliceError:
        data = _readable_prefix(session, address, length)
        if not data:
            raise MiError("Unable to read memory.") from None
    return [("memory", [{"begin": hex16(address), "offset": hex16(0), "end": hex16(address + len(data)),
                         "contents": data.hex()}])]


def _readable_prefix(session: object, address: int, length: int) -> bytes:
    from aliceserver.adapters.mi.session import MiSession

    assert isinstance(session, MiSession)
    out = b""
    while len(out) < length:
        page_end = (address + len(out) + 4096) & ~4095
        size = min(length - len(out), page_end - address - len(out))
        try:
            out += session.debugger.read_memory(address + len(out), size)
        except AliceError:
            break
    return out


def _number(session: object, text: str) -> int:
    from aliceserver.adapters.mi.session import MiSession

    assert isinstance(session, MiSession)
    try:
        return int(text, 0)
    except ValueError:
        return address_of(session, text)


def _write_memory_bytes(ctx: Context, args: list[str]) -> Reply:
    if len(args) not in (2, 3):
        raise MiError("Usage: ADDR DATA [COUNT].")
    session = ctx.session  # (before a run the engine refuses in gdb's words: the file's
    address = address_of(session, args[0])  # sections are read only, as gdb's `set write off`)
    data = _hex_bytes(args[1])
    if len(args) == 3:
        count = int(args[2], 0)
        if count > len(data) and data:
            data = (data * (count // len(data) + 1))[:count]
    _write(session, address, data)
    return None


def _write(session: MiSession, address: int, data: bytes) -> None:
    """(No =memory-changed: gdb suppresses it for the MI writes, mi_suppress_notification.)"""
    if not data:
        return  # (gdb writes nothing)
    try:
        session.debugger.write_memory(address, data)
    except AliceError as error:  # no program at all: no memory there either
        raise MiError(f"Cannot access memory at address {address:#x}" if str(error) == NOT_RUNNING else str(error)) from None


_ATOL = re.compile(r"\s*[+-]?\d*")


def _atol(text: str) -> int:
    """C's atol: the leading decimal number, 0 where there is none."""
    digits = _ATOL.match(text)
    try:
        return int(digits.group(0)) if digits is not None else 0
    except ValueError:
        return 0


def _write_memory(ctx: Context, args: list[str]) -> Reply:
    """gdb's deprecated -data-write-memory [-o COLUMN_OFFSET] ADDR FORMAT WORD-SIZE VALUE: VALUE
    (an expression) stored in WORD-SIZE bytes at ADDR + COLUMN_OFFSET words; FORMAT unused."""
    options = getopt("data-write-memory", args, valued="o")
    rest = options.rest
    if len(rest) != 4:
        raise MiError("-data-write-memory: Usage: [-o COLUMN_OFFSET] ADDR FORMAT WORD-SIZE VALUE.")
    session = ctx.session
    address = address_of(session, rest[0])
    size = _atol(rest[2])
    address += _atol(options.get("o") or "0") * size
    value = address_of(session, rest[3])
    _write(session, address, (value & ((1 << 8 * size) - 1)).to_bytes(size, "little") if size > 0 else b"")
    return None


_HEX_BYTE = re.compile(r"\s*([+-]?)([0-9a-fA-F]{1,2})")


def _hex_bytes(text: str) -> bytes:
    """gdb's reading of the DATA of -data-write-memory-bytes: two characters a byte, each
    pair read with sscanf's %02x (blanks, a sign, then what hex digits there are)."""
    if len(text) % 2:
        raise MiError(f"Hex-encoded '{text}' must represent an integral number of addressable memory units.")
    data = bytearray()
    for index in range(0, len(text), 2):
        found = _HEX_BYTE.match(text[index : index + 2])
        if found is None:
            raise MiError("Invalid argument")
        value = int(found.group(2), 16)
        data.append(-value & 0xFF if found.group(1) == "-" else value)
    return bytes(data)


def _read_memory(ctx: Context, args: list[str]) -> Reply:
    options = getopt("data-read-memory", args, valued="o")
    rest = options.rest
    if len(rest) not in (5, 6):
        raise MiError("-data-read-memory: Usage: ADDR WORD-FORMAT WORD-SIZE NR-ROWS NR-COLS [ASCHAR].")
    session = ctx.session
    address = address_of(session, rest[0]) + int(options.get("o") or "0", 0)
    fmt, size, rows, cols = rest[1], int(rest[2]), int(rest[3]), int(rest[4])
    if size not in (1, 2, 4, 8) or rows < 1 or cols < 1:
        raise MiError("-data-read-memory: invalid word size or count")
    total = size * rows * cols
    try:
        data = session.debugger.read_memory(address, total)
    except AliceError:
        data = _readable_prefix(session, address, total)
        if not data:
            raise MiError("Unable to read memory.") from None
    memory: list[Value] = []
    for row in range(rows):
        row_at = address + row * size * cols
        words: list[Value] = []
        chars = ""
        for col in range(cols):
            offset = (row * cols + col) * size
            chunk = data[offset : offset + size]
            if len(chunk) < size:
                words.append("N/A")
                continue
            words.append(_word(int.from_bytes(chunk, "little"), fmt, size))
        entry: dict[str, Value] = {"addr": hex16(row_at), "data": words}
        if len(rest) == 6:
            for b in data[row * size * cols : (row + 1) * size * cols]:
                chars += chr(b) if 0x20 <= b < 0x7F else rest[5]
            entry["ascii"] = chars
        memory.append(entry)
    step = size * cols
    return [("addr", hex16(address)), ("nr-bytes", str(len(data))), ("total-bytes", str(total)),
            ("next-row", hex16(address + step)), ("prev-row", hex16(address - step)),
            ("next-page", hex16(address + total)), ("prev-page", hex16(address - total)),
            ("memory", memory)]


def _word(value: int, fmt: str, size: int) -> str:
    if fmt == "x":
        return f"0x{value:0{size * 2}x}"
    if fmt == "o":
        return "0" + format(value, "o")
    if fmt == "t":
        return format(value, f"0{size * 8}b")
    if fmt == "d":
        return str(value - (1 << size * 8) if value >> (size * 8 - 1) else value)
    if fmt == "c":
        return f"{value} '{chr(value)}'" if 0x20 <= value < 0x7F else str(value)
    if fmt == "a":
        return hex(value)
    return str(value)


# --- registers -----------------------------------------------------------------------------
def _selected(args: list[str], command: str, names: tuple[str, ...]) -> list[int]:
    numbers = []
    for arg in args:
        try:
            number = int(arg)
        except ValueError:
            raise MiError(f"-{command}: bad register number") from None
        if not 0 <= number < len(names):
            raise MiError("bad register number")
        numbers.append(number)
    return numbers


def _register_names(ctx: Context, args: list[str]) -> Reply:
    names = register_names(ctx.session)
    numbers = _selected(args, "data-list-register-names", names) or list(range(len(names)))
    return [("register-names", [names[n] for n in numbers])]


def _register_values(ctx: Context, args: list[str]) -> Reply:
    options = getopt("data-list-register-values", args, long=("skip-unavailable",))
    if not options.rest:
        raise MiError("-data-list-register-values: Usage: -data-list-register-values [--skip-unavailable] "
                      "<format> [<regnum1>...<regnumN>]")
    session = ctx.session
    tid, level = session.context_frame(ctx.thread, ctx.frame)
    fmt = options.rest[0]
    if fmt not in ("x", "o", "t", "d", "r", "N", "z"):
        raise MiError(f"Unknown register format: {fmt}")
    names = register_names(session)
    if evaluates_registers(session):
        numbers = _selected(options.rest[1:], "data-list-register-values", names)
        return [("register-values", list(numbered_values(session, tid, level, fmt, numbers)))]
    values = read_raw(session, tid, level)
    numbers = _selected(options.rest[1:], "data-list-register-values", names) or list(range(len(names)))
    out: list[Value] = []
    for number in numbers:
        name = names[number]
        if name in values:
            raw = values[name]
            shown = "<not saved>" if raw is None else format_value(session, name, raw, fmt)
            out.append({"number": str(number), "value": shown})
        elif (extra := described_value(session, tid, name)) is not None:  # the same in every frame
            out.append({"number": str(number), "value": format_value(session, name, extra, fmt)})
    return [("register-values", out)]


def _changed_registers(ctx: Context, args: list[str]) -> Reply:
    """gdb's: the registers of the selected frame whose contents differ from those the
    previous call saw (any thread, frame or stop; all of them at the first call)."""
    session = ctx.session
    session.require_stopped()
    tid, level = session.context_frame(ctx.thread, ctx.frame)
    names = register_names(session)
    if evaluates_registers(session):
        contents = numbered_contents(session, tid, level, names)
    else:
        raw = read_raw(session, tid, level)
        contents = [None if raw.get(name) is None else repr(raw[name]).encode() for name in names]
    before, session.register_contents = session.register_contents, (names, contents)
    asked = [_atoi(arg) for arg in args] or [n for n, name in enumerate(names) if name]
    if any(not 0 <= n < len(names) or not names[n] for n in asked):
        raise MiError("bad register number")
    if before is None or before[0] != names:  # first call, or another architecture
        return [("changed-registers", [str(n) for n in asked])]
    return [("changed-registers", [str(n) for n in asked if before[1][n] != contents[n]])]


def _atoi(text: str) -> int:
    """C's atoi, as gdb reads these numbers: leading digits, else 0."""
    found = re.match(r"\s*[-+]?\d+", text)
    return int(found.group()) if found else 0


def register(registry: MiRegistry) -> None:
    for name, handler in {
        "data-evaluate-expression": _evaluate_expression, "data-disassemble": _data_disassemble,
        "data-read-memory-bytes": _read_memory_bytes, "data-write-memory-bytes": _write_memory_bytes,
        "data-write-memory": _write_memory,
        "data-read-memory": _read_memory, "data-list-register-names": _register_names,
        "data-list-register-values": _register_values, "data-list-changed-registers": _changed_registers,
        "data-write-register-values": write_register_values,
    }.items():  # fmt: skip
        registry.add(name, handler)
