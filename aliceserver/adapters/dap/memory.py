"""Memory and code: readMemory, writeMemory, disassemble."""

from __future__ import annotations

import base64
import binascii
import os
from typing import TYPE_CHECKING

from aliceserver.adapters.dap.messages import Arguments, InvalidArguments, JsonObject, WrongState
from aliceserver.adapters.dap.shapes import memory_reference, parse_memory_reference
from aliceserver.debuggers.model import Instruction
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.dap.registry import Registry
    from aliceserver.adapters.dap.session import DapSession

MAX_READ = 1 << 20  # bytes per readMemory: clients page through bigger ranges
MAX_INSTRUCTIONS = 4096
_PAGE = 4096
_LONGEST = 15  # bytes of the longest x86 instruction


def _address(args: Arguments) -> int:
    base = parse_memory_reference(args.string("memoryReference"))
    return (base + (args.opt_integer("offset", 0) or 0)) % 2**64


def _require_process(session: DapSession, command: str) -> None:
    if session.debugger.process is None:
        raise WrongState(f"{command}: the program is not being run")


def _readable(session: DapSession, address: int, count: int) -> bytes:
    """The readable start of [address, address + count)."""
    debugger = session.debugger
    try:
        return debugger.read_memory(address, count)
    except AliceError:
        pass
    data = b""
    while len(data) < count:
        at = address + len(data)
        chunk = min(count - len(data), _PAGE - at % _PAGE)
        while chunk:  # halve until a piece reads: regions need not be page-sized
            try:
                data += debugger.read_memory(at, chunk)
                break
            except AliceError:
                chunk //= 2
        if not chunk:
            break
    return data


def read_memory(session: DapSession, args: Arguments) -> JsonObject:
    _require_process(session, "readMemory")
    address = _address(args)
    count = args.integer("count")
    if count < 0:
        raise InvalidArguments("readMemory: 'count' must not be negative")
    count = min(count, MAX_READ, 2**64 - address)
    data = _readable(session, address, count)
    body: JsonObject = {"address": memory_reference(address)}
    if data:
        body["data"] = base64.b64encode(data).decode("ascii")
    if len(data) < count:
        body["unreadableBytes"] = count - len(data)
    return body


def write_memory(session: DapSession, args: Arguments) -> JsonObject:
    _require_process(session, "writeMemory")
    address = _address(args)
    try:
        data = base64.b64decode(args.string("data"), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidArguments("writeMemory: 'data' is not base64") from None
    written = len(data)
    try:
        session.debugger.write_memory(address, data)
    except AliceError:
        if not args.boolean("allowPartial"):
            raise
        written = 0  # find how much of it is writable: the readable prefix
        readable = _readable(session, address, len(data))
        if readable:
            session.debugger.write_memory(address, data[: len(readable)])
            written = len(readable)
    if session.state.client.invalidated:
        session.after_response(lambda: session.send_event("invalidated", {"areas": ["variables"]}))
    return {"bytesWritten": written}


def _decode_from(session: DapSession, start: int, count: int) -> list[Instruction]:
    try:
        return session.debugger.disassemble(start, count)
    except AliceError:
        return []


def _before(session: DapSession, address: int, wanted: int) -> list[Instruction]:
    """Up to `wanted` instructions that end exactly at `address` (x86 decodes forward only:
    start from the function's beginning when it is near, else try earlier start points
    until one lines up with `address`)."""
    symbol = session.debugger.lookup_address(address)
    starts = []
    if symbol.name is not None and 0 < symbol.offset <= wanted * _LONGEST:
        starts.append(address - symbol.offset)
    span = wanted * _LONGEST
    starts += [address - span - shift for shift in range(_LONGEST)]
    for start in starts:
        if start < 0:
            continue
        decoded = _decode_from(session, start, wanted * _LONGEST)
        ends = [i for i in decoded if i.address < address]
        if ends and ends[-1].address + ends[-1].size == address:
            return ends[-wanted:]
    return []


def _filler(address: int) -> JsonObject:
    return {
        "address": memory_reference(address),
        "instruction": "??",
        "presentationHint": "invalid",
    }


def disassemble(session: DapSession, args: Arguments) -> JsonObject:
    _require_process(session, "disassemble")
    address = _address(args)
    offset = args.opt_integer("instructionOffset", 0) or 0
    if abs(offset) > MAX_INSTRUCTIONS:  # x86 decodes forward: each one costs a decode
        raise InvalidArguments(
            f"disassemble: 'instructionOffset' must be within ±{MAX_INSTRUCTIONS}"
        )
    count = args.integer("instructionCount")
    if count <= 0:
        return {"instructions": []}
    count = min(count, MAX_INSTRUCTIONS)
    symbols = args.boolean("resolveSymbols", True)
    rows: list[Instruction | int] = []  # an int: an address with nothing decodable
    if offset < 0:
        earlier: list[Instruction | int] = list(_before(session, address, -offset))
        missing = -offset - len(earlier)
        rows += [address - missing + i - len(earlier) for i in range(missing)] + earlier
    after = max(0, count - len(rows)) + max(0, offset)
    forward: list[Instruction | int] = list(_decode_from(session, address, after))
    if offset > 0:
        forward = forward[offset:]
    rows += forward
    rows = rows[:count]
    last = rows[-1] if rows else address
    next_address = last if isinstance(last, int) else last.address + last.size
    while len(rows) < count:  # unreadable memory: the client still gets `count` rows
        rows.append(next_address)
        next_address += 1
    return {"instructions": [_instruction_json(session, row, symbols) for row in rows]}


def _instruction_json(session: DapSession, row: Instruction | int, symbols: bool) -> JsonObject:
    if isinstance(row, int):
        return _filler(row % 2**64)
    body: JsonObject = {
        "address": memory_reference(row.address),
        "instructionBytes": row.raw.hex(" "),
        "instruction": f"{row.mnemonic} {row.operands}".strip(),
    }
    if symbols and row.symbol is not None and row.symbol.name:
        body["symbol"] = row.symbol.name
    if row.target is not None and row.target.name:
        suffix = f"+{row.target.offset}" if row.target.offset else ""
        body["instruction"] += f" <{row.target.name}{suffix}>"
    position = session.debugger.source_position(row.address)
    if position is not None:
        body["location"] = {"name": os.path.basename(position.path), "path": position.path}
        body["line"] = session.state.line_out(position.line)
    return body


def register(registry: Registry) -> None:
    registry.add("readMemory", read_memory, show_user=False)
    registry.add("writeMemory", write_memory)
    registry.add("disassemble", disassemble, show_user=False)
