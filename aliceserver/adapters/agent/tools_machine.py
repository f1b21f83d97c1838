"""Machine-level tools and output: debug_memory, debug_registers, debug_disassemble,
debug_output, debug_gcore."""

from __future__ import annotations

import os
import re
from typing import Any

from aliceserver.adapters.agent.budget import Omissions
from aliceserver.adapters.agent.common import (
    SESSION,
    THREAD,
    ToolEnv,
    no_location,
    parse_int,
    pointer_value,
    thread_of,
)
from aliceserver.adapters.agent.errors import ErrorCode, ToolError, bad_argument
from aliceserver.adapters.agent.registry import Args, Param, ToolRegistry, ToolSpec
from aliceserver.adapters.agent.session import DebugSession
from aliceserver.adapters.agent.tools_core import core_is_read_only

MAX_MEMORY = 2048  # bytes one debug_memory call reads or writes (its dump fits a reply)
MAX_INSTRUCTIONS = 200
_NAME = re.compile(r"[A-Za-z_][\w:]*")
_STREAMS = {
    "all": None,
    "stdout": frozenset({"stdout"}),
    "stderr": frozenset({"stderr"}),
    "program": frozenset({"stdout", "stderr"}),
    "console": frozenset({"console"}),
}


def _address(session: DebugSession, text: str, thread: int) -> int:
    """A number, or an expression: a pointer gives where it points, another lvalue itself."""
    number = parse_int(text)
    if number is not None:
        return number
    value = session.debugger.evaluate(text, thread, 0)
    if value.error:
        raise ToolError(ErrorCode.BAD_EXPRESSION, f"{text}: {value.value}", "give an address or an expression")
    pointed = pointer_value(value.value)
    if pointed is not None and "*" in value.type:
        return pointed
    if value.address is not None:
        return value.address
    if pointed is not None:  # a register or a computed number
        return pointed
    raise bad_argument(f"{text} is neither an address nor an object in memory")


def _dump(address: int, data: bytes) -> list[str]:
    rows = []
    for offset in range(0, len(data), 16):
        row = data[offset : offset + 16]
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        rows.append(f"{address + offset:#014x}: {row.hex(' '):<47}  |{text}|")
    return rows


def _memory(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    with session.lock:
        session.require_stopped()
        thread = thread_of(session, args)
        address = _address(session, args.text("address") or "", thread)
        write = args.text("write")
        if write is not None:
            try:
                data = bytes.fromhex(write)
            except ValueError:
                raise bad_argument("write must be hex bytes, like '2a 00 00 00'") from None
            if not data or len(data) > MAX_MEMORY:
                raise bad_argument(f"write 1 to {MAX_MEMORY} bytes")
            with core_is_read_only(session):
                session.debugger.write_memory(address, data)
            return {"session": session.id, "address": f"{address:#x}", "written": len(data)}
        size = args.integer("size") or 64
        data = session.debugger.read_memory(address, size)
    return {"session": session.id, "address": f"{address:#x}", "size": len(data), "hex": _dump(address, data)}


def _registers(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    with session.lock:
        session.require_stopped()
        thread = thread_of(session, args)
        wanted = [str(n).lstrip("$") for n in args.items("names")]
        debugger = session.debugger
        values = dict(debugger.read_registers(thread).values)
        shown: dict[str, str] = {}
        if args.flag("vector") or any(n.startswith(("xmm", "ymm", "st", "f", "mxcsr")) for n in wanted):
            vector = debugger.read_vector_registers(thread)
            for name, number in vector.control.items():
                shown[name] = f"{number:#x}"
            for prefix, banks in (("st", vector.st), ("xmm", vector.xmm), ("ymm", vector.ymm)):
                for index, raw in enumerate(banks):
                    shown[f"{prefix}{index}"] = "0x" + raw[::-1].hex()
    for name, number in values.items():
        shown.setdefault(name, f"{number:#x}")
    if wanted:
        missing = [n for n in wanted if n not in shown]
        if missing:
            raise ToolError(ErrorCode.BAD_ARGUMENT, f"no register {', '.join(missing)}",
                            f"registers: {', '.join(values)}")
        shown = {n: shown[n] for n in wanted}
    elif not args.flag("vector"):
        shown = {n: shown[n] for n in values}
    return {"session": session.id, "thread": thread, "registers": shown}


def _gcore(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    with session.lock:
        session.require_stopped()
        pid = session.debugger.process.pid if session.debugger.process is not None else 0
        # relative to `directory` (a command line's own), else to the server's directory
        path = os.path.join(args.text("directory") or "", os.path.expanduser(args.text("path") or f"core.{pid}"))
        written = session.debugger.write_core(path)
    return {"session": session.id, "path": written.path, "size": written.size, "warnings": list(written.warnings)}


def _start_address(session: DebugSession, text: str, thread: int) -> int:
    number = parse_int(text.lstrip("*"))
    if number is not None:
        return number
    debugger = session.debugger
    if _NAME.fullmatch(text):  # a function from its first instruction, not past the prologue
        try:
            return debugger.lookup_symbol(text)
        except Exception:
            pass
    places = debugger.resolve_location(text)
    if not places:
        raise no_location(text)
    return places[0].address


def _disassemble(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    with session.lock:
        session.require_stopped()
        thread = thread_of(session, args)
        debugger = session.debugger
        pc = debugger.read_registers(thread).values.get("rip")
        location = args.text("location")
        if location:
            start = _start_address(session, location.strip(), thread)
        elif pc is not None:
            start = pc
        else:
            raise bad_argument("no current pc: give a location")
        count = args.integer("count") or 20
        instructions = debugger.disassemble(start, count, syntax=args.text("syntax") or "intel")
    rows = []
    with_source = args.flag("source")
    last_line: tuple[str, int] | None = None
    for insn in instructions:
        if with_source:  # each new source line above its instructions, as gdb's /s
            position = debugger.source_position(insn.address)
            if position is not None and (position.path, position.line) != last_line:
                last_line = (position.path, position.line)
                rows.append(_source_row(env, position.path, position.line))
        marker = "->" if insn.address == pc else "  "
        where = ""
        if insn.symbol is not None and insn.symbol.name:
            where = f" <{insn.symbol.name}+{insn.symbol.offset}>"
        target = ""
        if insn.target is not None and insn.target.name:
            target = f"  ; {insn.target.name}" + (f"+{insn.target.offset}" if insn.target.offset else "")
        rows.append(f"{marker} {insn.address:#x}{where}: {insn.mnemonic} {insn.operands}".rstrip() + target)
    omissions = Omissions()
    if instructions and len(instructions) == count:
        following = instructions[-1].address + instructions[-1].size
        omissions.add("the instructions that follow", f"debug_disassemble location={following:#x}")
    return omissions.attach({"session": session.id, "instructions": rows})


def _source_row(env: ToolEnv, path: str, line: int) -> str:
    lines = env.sources.lines(path)
    text = lines[line - 1].strip() if lines is not None and 0 < line <= len(lines) else ""
    return f"{os.path.basename(path)}:{line}: {text}".rstrip()


def _output(env: ToolEnv, args: Args) -> dict[str, Any]:
    session = env.session(args)
    streams = _STREAMS[args.text("stream") or "all"]
    # Leave room in the reply for the rest, so the size guard never cuts the text itself.
    limit = min(args.integer("max_chars") or env.budget.max_output * 2, env.budget.max_reply - 1000)
    buffer = session.output
    lines = args.integer("tail")
    if lines is not None:
        part = buffer.tail(limit, lines, streams)
        reply: dict[str, Any] = {"session": session.id, "text": part.text, "earlier": part.more}
    else:
        part = buffer.read(args.integer("cursor") or 0, limit, streams)
        reply = {"session": session.id, "text": part.text, "cursor": part.cursor}
        if part.more:
            reply["more"] = part.more
            reply["hint"] = f"read on with cursor={part.next_cursor}"
    reply["next_cursor"] = part.next_cursor
    reply["dropped"] = part.dropped
    reply["state"] = session.state.value
    return reply


def register(registry: ToolRegistry, env: ToolEnv) -> None:
    registry.add(ToolSpec(
        "debug_memory",
        "Read (hex dump) or write the program's memory at an address or expression (a pointer "
        "reads where it points; another variable reads the variable itself).",
        (
            SESSION,
            Param("address", "string", "0x7ffe0000, or an expression: p, &x, buf.", required=True),
            Param("size", "integer", "Bytes to read (default 64).", minimum=1, maximum=MAX_MEMORY),
            Param("write", "string", "Hex bytes to write instead of reading, e.g. '2a 00 00 00'."),
            THREAD,
        ),
        lambda a: _memory(env, a),
    ))
    registry.add(ToolSpec(
        "debug_registers",
        "Registers of a thread (general ones by default; vector=true adds x87/SSE/AVX).",
        (
            SESSION,
            Param("names", "array", "Only these registers (rip, rsp, xmm0...).", items="string"),
            Param("vector", "boolean", "Include st0-7, xmm0-15, ymm0-15 and the control words."),
            THREAD,
        ),
        lambda a: _registers(env, a),
        read_only=True,
    ))
    registry.add(ToolSpec(
        "debug_disassemble",
        "Machine instructions from the current pc (marked ->) or a location (function, "
        "file:line, address).",
        (
            SESSION,
            Param("location", "string", "Where to start: function, file:line, or address."),
            Param("count", "integer", "Instructions (default 20).", minimum=1, maximum=MAX_INSTRUCTIONS),
            Param("syntax", "string", "intel (default) or att.", enum=("intel", "att")),
            Param("source", "boolean", "Show each source line above its instructions."),
            THREAD,
        ),
        lambda a: _disassemble(env, a),
        read_only=True,
    ))
    registry.add(ToolSpec(
        "debug_gcore",
        "Save a core file of the stopped program (gdb's gcore): every thread's registers and "
        "the memory, to open in gdb or lldb later.",
        (
            SESSION,
            Param("path", "string", "The core file to write (default core.PID)."),
            Param("directory", "string", "Where a relative path (or core.PID) goes."),
        ),
        lambda a: _gcore(env, a),
    ))
    registry.add(ToolSpec(
        "debug_output",
        "The program's output (and log messages of logpoints), read by cursor: pass the "
        "next_cursor of the previous reply to get only what is new; or the last lines with "
        "tail. dropped counts characters no longer kept (the server keeps the last 1 MiB).",
        (
            SESSION,
            Param("cursor", "integer", "Where to read from (default 0: the oldest kept).", minimum=0),
            Param("tail", "integer", "Instead: the last N lines.", minimum=0),
            Param("max_chars", "integer", "At most this many characters (default 4000).",
                  minimum=1, maximum=15_000),
            Param("stream", "string", "all (default), program (stdout+stderr), stdout, "
                  "stderr or console (logpoints).", enum=tuple(_STREAMS), default="all"),
        ),
        lambda a: _output(env, a),
        read_only=True,
    ))
