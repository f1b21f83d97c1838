"""The debug console (evaluate, context `repl`): an expression, or a few gdb commands.

`bt [N]`, `info registers [NAME...]`, `info threads`, `info locals`, `info args`,
`info breakpoints`, `p[/FMT] EXPR`, `x/NFU ADDRESS`, `help`. A line starting with a
backtick is always taken as a command; anything else that is not one is an expression.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from aliceserver.adapters.dap.handles import FrameRef
from aliceserver.adapters.dap.messages import InvalidArguments, JsonObject, WrongState
from aliceserver.debuggers.model import VariableScope
from aliceserver.errors import ProtocolError

if TYPE_CHECKING:
    from aliceserver.adapters.dap.session import DapSession

COMMANDS = ("bt", "backtrace", "info", "print", "p", "x", "help")
_PRINT = re.compile(r"^(?:p|print|output|call)(?:/([a-z]))?(?:\s+(.*))?$", re.S)
_EXAMINE = re.compile(r"^x(?:/(\d*)([xduotacfs]?)([bhwg]?))?\s+(.+)$", re.S)
_NUMBER = re.compile(r"(?<![\w.])(0x[0-9a-fA-F]+|-?\d+)")
# An operator then a space (or a member/index/call/assignment): the line is an expression.
_OPERATOR = re.compile(r"(?:[-+*/%&|^<>=!]=?|&&|\|\||<<|>>|\?)\s|(?:\.|->|\[|\(|=)")
_SIZES = {"b": 1, "h": 2, "w": 4, "g": 8}
_FORMATS = "xduotacz"


def run(session: DapSession, line: str, frame: FrameRef | None) -> JsonObject:
    text = line.strip()
    forced = text.startswith("`")
    if forced:
        text = text[1:].strip()
    if not text:
        if forced:
            raise InvalidArguments("evaluate: empty command")
        return {"result": "", "variablesReference": 0}
    command = _command_for(text)
    if command is not None:
        return command(session, text, frame)
    if forced:
        raise ProtocolError(f'Undefined command: "{text.split()[0]}".  Try "help".')
    return _print(session, f"print {text}", frame, bare=True)


def _command_for(text: str) -> Callable[[DapSession, str, FrameRef | None], JsonObject] | None:
    word, _, rest = text.partition(" ")
    rest = rest.strip()
    # `p - q`, `x = 3`, `bt + 1`: a variable with a command's name in an expression.
    if rest and _OPERATOR.match(rest) and "/" not in word:
        return None
    if word in ("bt", "backtrace", "where") and (not rest or rest.isdigit()):
        return _backtrace
    if word in ("info", "i") and rest:
        return _info
    if _PRINT.match(text) and ("/" in word or rest):
        return _print
    if _EXAMINE.match(text):
        return _examine
    if word == "help" and not rest:
        return _help
    return None


def _where(session: DapSession, frame: FrameRef | None) -> tuple[int, int]:
    process = session.debugger.process
    if process is None:
        raise WrongState("The program is not being run.")
    if frame is not None:
        return frame.thread_id, frame.level
    stops = session.state.last_stop
    return (next(iter(stops)) if stops else process.pid), 0


def _text(result: str) -> JsonObject:
    return {"result": result, "variablesReference": 0}


def _backtrace(session: DapSession, text: str, frame: FrameRef | None) -> JsonObject:
    parts = text.split()
    limit = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    thread, _ = _where(session, frame)
    lines = []
    for f in session.debugger.stack_trace(thread, 0, limit):
        where = ""
        if f.source is not None:
            where = f" at {os.path.basename(f.source.path)}:{f.source.line}"
        elif f.module:
            where = f" from {f.module}"
        lines.append(f"#{f.level:<3} {f.pc:#018x} in {f.function or f.symbol.name or '??'}{where}")
    return _text("\n".join(lines))


def _info(session: DapSession, text: str, frame: FrameRef | None) -> JsonObject:
    words = text.split()
    what, rest = words[1], words[2:]
    debugger = session.debugger
    if "threads".startswith(what) and len(what) >= 2:
        if debugger.process is None:
            raise WrongState("The program is not being run.")
        lines = [
            f"{t.tid:>8}  {t.name:<16} {t.state.value}"
            + (f"  {t.pc:#x}" if t.pc is not None else "")
            for t in debugger.threads()
        ]
        return _text("\n".join(lines))
    thread, level = _where(session, frame)
    if "registers".startswith(what) or what == "all-registers":
        rows: list[tuple[str, int]]
        if level == 0:
            rows = list(debugger.read_registers(thread).values.items())
        else:  # an outer frame: the registers the unwinder recovered
            scope = VariableScope.REGISTERS
            rows = [
                (v.name, int(v.value, 0)) for v in debugger.frame_variables(thread, level, scope)
            ]
        names = [name.lstrip("$") for name in rest]
        unknown = [name for name in names if name not in dict(rows)]
        if unknown:
            raise ProtocolError(f"Invalid register `{unknown[0]}'")
        chosen = [(n, v) for n, v in rows if not names or n in names]
        return _text("\n".join(f"{n:<10}{v:<#20x}{v}" for n, v in chosen))
    scopes = {"locals": VariableScope.LOCALS, "args": VariableScope.ARGUMENTS}
    if what in scopes:
        found = debugger.frame_variables(thread, level, scopes[what])
        if not found:
            return _text(f"No {what}.")
        return _text("\n".join(f"{v.name} = {v.value}" for v in found))
    if "breakpoints".startswith(what) and len(what) >= 1:
        listed = []
        for bp in session.debugger.location_breakpoints():
            where = ", ".join(f"{p.address:#x}" for p in bp.locations) or "<pending>"
            listed.append(f"{bp.id:<4} {bp.location}  {where}")
        return _text("\n".join(listed) or "No breakpoints.")
    raise ProtocolError(f'Undefined info command: "{what}".  Try "help".')


def _print(
    session: DapSession, text: str, frame: FrameRef | None, bare: bool = False
) -> JsonObject:
    from aliceserver.adapters.dap.inspection import variable_json  # one-way at import time

    match = _PRINT.match(text)
    if match is None or not (match.group(2) or "").strip():
        raise ProtocolError("The history is empty." if not bare else "expression is empty")
    fmt, expression = match.group(1), match.group(2).strip()
    if fmt is not None and fmt not in _FORMATS:
        raise ProtocolError(f'Undefined output format "{fmt}".')
    thread, level = _where(session, frame)
    info = session.debugger.evaluate(expression, thread, level, fmt)
    body = variable_json(session, info, frame or FrameRef(thread, level), expression)
    result: JsonObject = {"result": info.value, "type": info.type}
    for key in ("variablesReference", "namedVariables", "indexedVariables", "memoryReference"):
        if key in body:
            result[key] = body[key]
    return result


def _examine(session: DapSession, text: str, frame: FrameRef | None) -> JsonObject:
    match = _EXAMINE.match(text)
    assert match is not None
    count = int(match.group(1) or 1)
    fmt = match.group(2) or "x"
    size = _SIZES.get(match.group(3) or "", 1 if fmt == "c" else 4)
    thread, level = _where(session, frame)
    value = session.debugger.evaluate(match.group(4).strip(), thread, level)
    if value.value.startswith("{") and value.address is not None:
        address = value.address  # an array or a struct: examine where it lies
    else:
        number = _NUMBER.search(value.value)
        if number is None:
            raise ProtocolError(f"x: {value.value} is not an address")
        address = int(number.group(1), 0) % 2**64
    if count <= 0 or count > 4096:
        raise ProtocolError("x: the count must be between 1 and 4096")
    data = session.debugger.read_memory(address, count * size)
    per_line = max(1, 16 // size) if fmt != "c" else 8
    lines = []
    for row in range(0, count, per_line):
        items = []
        for index in range(row, min(count, row + per_line)):
            chunk = data[index * size : (index + 1) * size]
            items.append(_unit(int.from_bytes(chunk, "little"), size, fmt))
        symbol = session.debugger.lookup_address(address + row * size)
        label = f" <{symbol.name}+{symbol.offset}>" if symbol.name else ""
        lines.append(f"{address + row * size:#x}{label}:\t" + "\t".join(items))
    return _text("\n".join(lines))


def _unit(value: int, size: int, fmt: str) -> str:
    signed = value - (1 << (8 * size)) if value >> (8 * size - 1) else value
    if fmt == "d":
        return str(signed)
    if fmt == "u":
        return str(value)
    if fmt == "o":
        return f"0{value:o}"
    if fmt == "t":
        return f"{value:0{8 * size}b}"
    if fmt == "c":
        return f"{signed} {chr(value)!r}" if 32 <= value < 127 else str(signed)
    if fmt == "a":
        return f"{value:#x}"
    return f"{value:#0{2 + 2 * size}x}"


def _help(session: DapSession, text: str, frame: FrameRef | None) -> JsonObject:
    return _text(
        "Expressions are evaluated in the selected frame (C syntax; `x = 3` assigns).\n"
        "Commands: bt [N] | info registers [NAME...] | info threads | info locals | info args |\n"
        "info breakpoints | p[/x|d|u|o|t|c|a|z] EXPR | x/NFU ADDRESS (F: x d u o t c a, U: b h w g)\n"
        "Start a line with ` to force it to be read as a command."
    )
