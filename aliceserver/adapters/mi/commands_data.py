"""Data commands: expressions, disassembly, memory and registers (-data-*)."""

from __future__ import annotations

from aliceserver.adapters.mi.disasm import (
    Line,
    address_of,
    disassemble_range,
    function_at,
    source_of,
)
from aliceserver.adapters.mi.frames import evaluation_failure, hex16, whole_value_failure
from aliceserver.adapters.mi.output import Results, Value
from aliceserver.adapters.mi.parser import getopt
from aliceserver.adapters.mi.registers import NAMES, format_value, read_raw
from aliceserver.adapters.mi.registry import Context, MiError, MiRegistry, Reply
from aliceserver.errors import AliceError


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
    return [("value", session.display(info))]


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


def _with_source(ctx: Context, lines: list[Line], opcodes: bool) -> Value:
    session = ctx.session
    groups: list[tuple[str, Value]] = []
    current: tuple[str, int] | None = None
    insns: list[Value] = []

    def flush() -> None:
        if current is not None:
            path, line = current
            groups.append(("src_and_asm_line", {"line": str(line), "file": session.frames.file_name(path),
                                                "fullname": session.frames.fullname(path),
                                                "line_asm_insn": list(insns)}))

    for line in lines:
        position = source_of(session, line.insn.address)
        key = (position.path, position.line) if position is not None else ("??", 0)
        if key != current:
            flush()
            current, insns = key, []
        insns.append(_insn_tuple(line, opcodes))
    flush()
    return Results(groups, as_list=True)


def _data_disassemble(ctx: Context, args: list[str]) -> Reply:
    session = ctx.session
    options = getopt("data-disassemble", args, valued="selnfa", long=("opcodes=", "source"))
    if not options.rest and not options.has("opcodes"):
        raise MiError("-data-disassemble: Usage: ( -f filename -l linenum [-n howmany] | -s startaddr -e endaddr "
                      "| -a address ) [--opcodes mode] [--source] [--] mode.")
    try:
        mode = int(options.rest[0]) if options.rest else 0
    except ValueError:
        raise MiError("-data-disassemble: Mode argument must be in the range 0-5.") from None
    if not 0 <= mode <= 5:
        raise MiError("-data-disassemble: Mode argument must be in the range 0-5.")
    session.ensure_symbols()
    if not session.has_symbols():
        raise MiError("No symbol table is loaded.  Use the \"file\" command.")
    opcodes = mode in (2, 3, 5) or options.get("opcodes") in ("bytes", "display")
    source = mode in (1, 3, 4, 5) or options.has("source")
    if options.has("s"):
        if not options.has("e"):
            raise MiError("-data-disassemble: Usage: ( -f filename -l linenum [-n howmany] | -s startaddr -e endaddr "
                          "| -a address ) [--opcodes mode] [--source] [--] mode.")
        lines = disassemble_range(session, address_of(session, options.get("s") or ""),
                                  address_of(session, options.get("e") or ""))
    elif options.has("a"):
        lines = function_at(session, address_of(session, options.get("a") or ""))
    elif options.has("f") and options.has("l"):
        spec = f"{options.get('f')}:{options.get('l')}"
        places = session.debugger.resolve_location(spec)
        if not places:
            raise MiError("-data-disassemble: Invalid filename.")
        count = int(options.get("n") or "-1")
        lines = function_at(session, places[0].address)
        if count >= 0:  # as gdb: the first `count` instructions of the line's function
            lines = lines[:count]
    else:
        raise MiError("-data-disassemble: Usage: ( -f filename -l linenum [-n howmany] | -s startaddr -e endaddr "
                      "| -a address ) [--opcodes mode] [--source] [--] mode.")
    if source:
        return [("asm_insns", _with_source(ctx, lines, opcodes))]
    return [("asm_insns", [_insn_tuple(line, opcodes) for line in lines])]


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
    session = ctx.session
    session.require_process()
    address = address_of(session, args[0])
    try:
        data = bytes.fromhex(args[1])
    except ValueError:
        raise MiError("Invalid argument: hex data expected") from None
    if len(args) == 3:
        count = int(args[2], 0)
        if count > len(data) and data:
            data = (data * (count // len(data) + 1))[:count]
    session.debugger.write_memory(address, data)
    session.notify("memory-changed", [("thread-group", "i1"), ("addr", hex16(address)),
                                      ("len", hex(len(data)))])
    return None


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
def _selected(args: list[str], command: str) -> list[int]:
    numbers = []
    for arg in args:
        try:
            number = int(arg)
        except ValueError:
            raise MiError(f"-{command}: bad register number") from None
        if not 0 <= number < len(NAMES):
            raise MiError("bad register number")
        numbers.append(number)
    return numbers


def _register_names(ctx: Context, args: list[str]) -> Reply:
    numbers = _selected(args, "data-list-register-names") or list(range(len(NAMES)))
    return [("register-names", [NAMES[n] for n in numbers])]


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
    values = read_raw(session, tid)
    numbers = _selected(options.rest[1:], "data-list-register-values") or list(range(len(NAMES)))
    out: list[Value] = []
    for number in numbers:
        name = NAMES[number]
        if name in values:
            out.append({"number": str(number), "value": format_value(session, name, values[name], fmt)})
    return [("register-values", out)]


def _changed_registers(ctx: Context, args: list[str]) -> Reply:
    session = ctx.session
    tid = session.require_stopped()
    values = read_raw(session, tid)
    before = session.registers_before
    changed = [str(n) for n, name in enumerate(NAMES)
               if name in values and (before is None or before.get(name) != values[name])]
    session.registers_seen = values
    return [("changed-registers", changed)]


def register(registry: MiRegistry) -> None:
    for name, handler in {
        "data-evaluate-expression": _evaluate_expression, "data-disassemble": _data_disassemble,
        "data-read-memory-bytes": _read_memory_bytes, "data-write-memory-bytes": _write_memory_bytes,
        "data-read-memory": _read_memory, "data-list-register-names": _register_names,
        "data-list-register-values": _register_values, "data-list-changed-registers": _changed_registers,
    }.items():  # fmt: skip
        registry.add(name, handler)
