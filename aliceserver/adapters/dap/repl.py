"""The debug console (evaluate, context `repl`): an expression, or a few gdb commands.

`bt [N]`, `info registers [NAME...]`, `info threads`, `info locals`, `info args`,
`info breakpoints`, `info line|address|scope|proc`, `p[/FMT] EXPR`, `x/NFU ADDRESS`, `help`.
A line starting with a backtick is always taken as a command; anything else that is not
one is an expression.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from aliceserver.adapters.dap.handles import FrameRef
from aliceserver.adapters.dap.messages import InvalidArguments, JsonObject, WrongState
from aliceserver.adapters.gdbcommands.examine import examine
from aliceserver.adapters.gdbcommands.frames import frames_to_main
from aliceserver.adapters.gdbcommands.lines import info_line
from aliceserver.adapters.gdbcommands.procinfo import info_proc
from aliceserver.adapters.gdbcommands.selection import Selection
from aliceserver.adapters.gdbcommands.symbols import info_address, info_scope, info_symbol
from aliceserver.debuggers.model import VariableScope
from aliceserver.errors import ProtocolError

if TYPE_CHECKING:
    from aliceserver.adapters.dap.session import DapSession

COMMANDS = ("bt", "backtrace", "info", "print", "p", "x", "help")
_PRINT = re.compile(r"^(?:p|print|output|call)(?:/([a-z]))?(?:\s+(.*))?$", re.S)
_EXAMINE = re.compile(r"^x(?:/-?\d*[a-z]*)?\s+\S", re.S)  # `x/4xw buf`, `x/s msg`, `x main`
# An operator then a space (or a member/index/call/assignment): the line is an expression.
_OPERATOR = re.compile(r"(?:[-+*/%&|^<>=!]=?|&&|\|\||<<|>>|\?)\s|(?:\.|->|\[|\(|=)")
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
    for f in frames_to_main(session.debugger.stack_trace(thread, 0, limit)):  # as gdb's bt
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
    if what in _SHARED_INFO:
        return _text(_shared_info(session, what, " ".join(rest), frame))
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


_SHARED_INFO = ("line", "address", "scope", "proc", "symbol")


def _shared_info(session: DapSession, what: str, argument: str, frame: FrameRef | None) -> str:
    """`info line|address|scope|proc|symbol`, as gdb's console prints them."""
    process = session.debugger.process
    where = Selection(*_where(session, frame)) if process is not None else Selection(None)
    shown: list[str] = []
    if what == "line":
        info_line(session.debugger, where, session.state.commands, argument, shown.append)
    elif what == "address":
        info_address(session.debugger, where, argument, shown.append)
    elif what == "scope":
        info_scope(session.debugger, argument, shown.append)
    elif what == "symbol":
        info_symbol(session.debugger, where, argument, shown.append, started=process is not None)
    else:
        info_proc(process.pid if process is not None else None, argument, shown.append)
    return "".join(shown).rstrip("\n")


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
    # `p EXPR` puts its value in the session's value history ($1, $), as gdb's print does.
    info = session.debugger.evaluate(expression, thread, level, fmt, record=not bare)
    body = variable_json(session, info, frame or FrameRef(thread, level), expression)
    result: JsonObject = {"result": info.value, "type": info.type}
    for key in ("variablesReference", "namedVariables", "indexedVariables", "memoryReference"):
        if key in body:
            result[key] = body[key]
    return result


def _examine(session: DapSession, text: str, frame: FrameRef | None) -> JsonObject:
    thread, level = _where(session, frame)
    shown: list[str] = []
    examine(session.debugger, Selection(thread, level), session.state.commands.examine, text[1:], shown.append)
    return _text("".join(shown).rstrip("\n"))


def _help(session: DapSession, text: str, frame: FrameRef | None) -> JsonObject:
    return _text(
        "Expressions are evaluated in the selected frame (C syntax; `x = 3` assigns).\n"
        "Commands: bt [N] | info registers [NAME...] | info threads | info locals | info args |\n"
        "info breakpoints | info line|address|scope|proc ... | p[/x|d|u|o|t|c|a|z] EXPR | x/NFU ADDRESS (F: x d u o t a c f s i z, U: b h w g)\n"
        "Start a line with ` to force it to be read as a command."
    )
