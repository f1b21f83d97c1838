"""A symbol's DWARF location in gdb's words (dwarf2/loc.c's locexpr_describe_location_1
and disassemble_dwarf_expression): `a variable in $rdx`, `the constant 3`, or
`a complex DWARF expression:` with one line per operation (`     0: DW_OP_fbreg -20`)."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.debuggers.symbols.dwarf.rawread import ByteReader
from aliceserver.errors import ProtocolError, Unsupported

_REGISTERS = ("rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13",
              "r14", "r15", "rip", *(f"xmm{i}" for i in range(16)), *(f"st{i}" for i in range(8)))  # fmt: skip
_PLAIN = {  # operations without operands
    0x06: "deref", 0x12: "dup", 0x13: "drop", 0x14: "over", 0x16: "swap", 0x17: "rot", 0x18: "xderef",
    0x19: "abs", 0x1A: "and", 0x1B: "div", 0x1C: "minus", 0x1D: "mod", 0x1E: "mul", 0x1F: "neg",
    0x20: "not", 0x21: "or", 0x22: "plus", 0x24: "shl", 0x25: "shr", 0x26: "shra", 0x27: "xor",
    0x29: "eq", 0x2A: "ge", 0x2B: "gt", 0x2C: "le", 0x2D: "lt", 0x2E: "ne", 0x96: "nop",
    0x97: "push_object_address", 0x9B: "form_tls_address", 0x9C: "call_frame_cfa", 0x9F: "stack_value",
    0xE0: "GNU_push_tls_address",
}  # fmt: skip
_FIXED = {0x08: ("const1u", 1, False), 0x09: ("const1s", 1, True), 0x0A: ("const2u", 2, False),
          0x0B: ("const2s", 2, True), 0x0C: ("const4u", 4, False), 0x0D: ("const4s", 4, True),
          0x0E: ("const8u", 8, False), 0x0F: ("const8s", 8, True)}  # fmt: skip
_PIECES = (0x93, 0x9D)  # DW_OP_piece, DW_OP_bit_piece


class _Reader(ByteReader):
    """The DWARF kit's byte cursor, failing with gdb's words."""

    __slots__ = ()

    def error(self, at: int, runaway: bool) -> Exception:
        return ProtocolError("Corrupted DWARF expression.")


def register_name(number: int) -> str:
    return _REGISTERS[number] if 0 <= number < len(_REGISTERS) else str(number)


def describe_location(expression: bytes, frame_base: bytes, tls_module: str = "") -> str:
    """What gdb says after `is ` for a location expression (without the final period)."""
    text: list[str] = []
    reader = _Reader(expression)
    first = True
    while reader.pos < len(expression):
        here = reader.pos
        if not first:
            text.append(", and ")
        first = False
        nice = _describe_piece(expression, reader, frame_base)
        disassembled = nice is None and expression[here] not in _PIECES
        if nice is not None:
            text.append(nice)
        elif disassembled:
            text.append("a complex DWARF expression:\n")
            text.append(disassemble(expression, here))
            reader.pos = _piece_end(expression, here)
        if reader.pos < len(expression):
            empty = reader.pos == here
            if disassembled:
                text.append("   ")
            op = reader.u8()
            if op == 0x93:
                size = reader.uleb()
                text.append(f"an empty {size}-byte piece" if empty else f" [{size}-byte piece]")
            elif op == 0x9D:
                bits, offset = reader.uleb(), reader.uleb()
                text.append(f"an empty {bits}-bit piece" if empty else f" [{bits}-bit piece, offset {offset} bits]")
            else:
                raise ProtocolError("Corrupted DWARF2 expression for symbol.")
    return "".join(text)


def _piece_end(data: bytes, pos: int) -> int:
    """Where disassembly stops: the next DW_OP_piece / DW_OP_bit_piece, or the end."""
    reader = _Reader(data, pos)
    while reader.pos < len(data) and data[reader.pos] not in _PIECES:
        _operation(data, reader, 0, lambda _text: None)
    return reader.pos


def _ends_piece(data: bytes, pos: int) -> bool:
    return pos == len(data) or data[pos] in _PIECES


def _describe_piece(data: bytes, reader: _Reader, frame_base: bytes) -> str | None:
    """locexpr_describe_location_piece: one simple piece in words, else None (unread)."""
    start = reader.pos
    op = data[start]
    if 0x50 <= op <= 0x6F:  # DW_OP_reg0..31
        reader.pos += 1
        return f"a variable in ${register_name(op - 0x50)}"
    if op == 0x90:  # DW_OP_regx
        reader.pos += 1
        return f"a variable in ${register_name(reader.uleb())}"
    if op == 0x91:  # DW_OP_fbreg: words only when the frame base is a register
        probe = _Reader(data, start + 1)
        offset = probe.sleb()
        if not _ends_piece(data, probe.pos) or not frame_base:
            return None
        base = _Reader(frame_base)
        base_op = base.u8()
        if 0x70 <= base_op <= 0x8F:
            register, base_offset = base_op - 0x70, base.sleb()
        elif 0x50 <= base_op <= 0x6F:
            register, base_offset = base_op - 0x50, 0
        else:
            return None
        reader.pos = probe.pos
        return f"a variable at frame base reg ${register_name(register)} offset {base_offset}+{offset}"
    if 0x70 <= op <= 0x8F:  # DW_OP_breg0..31 alone
        probe = _Reader(data, start + 1)
        offset = probe.sleb()
        if _ends_piece(data, probe.pos):
            reader.pos = probe.pos
            return f"a variable at offset {offset} from base reg ${register_name(op - 0x70)}"
        return None
    if 0x30 <= op <= 0x4F and start + 1 < len(data) and data[start + 1] == 0x9F:  # DW_OP_litN stack_value
        reader.pos += 2
        return f"the constant {op - 0x30}"
    return None


def disassemble(data: bytes, start: int = 0) -> str:
    """Operations from `start` to the next piece (or the end), one line each, offsets from 0."""
    lines: list[str] = []
    reader = _Reader(data, start)
    while reader.pos < len(data) and data[reader.pos] not in _PIECES:
        _operation(data, reader, 0, lines.append)
    return "".join(lines)


def _operation(data: bytes, reader: _Reader, indent: int, out: Callable[[str], None]) -> None:
    offset = reader.pos
    op = reader.u8()
    head = f"  {offset:>{indent + 4}}: "
    if op == 0x03:
        out(f"{head}DW_OP_addr 0x{reader.unsigned(8):x}\n")
    elif op in _FIXED:
        name, size, signed = _FIXED[op]
        out(f"{head}DW_OP_{name} {reader.signed(size) if signed else reader.unsigned(size)}\n")
    elif op == 0x10:
        out(f"{head}DW_OP_constu {reader.uleb()}\n")
    elif op == 0x11:
        out(f"{head}DW_OP_consts {reader.sleb()}\n")
    elif 0x30 <= op <= 0x4F:
        out(f"{head}DW_OP_lit{op - 0x30}\n")
    elif 0x50 <= op <= 0x6F:
        out(f"{head}DW_OP_reg{op - 0x50} [${register_name(op - 0x50)}]\n")
    elif 0x70 <= op <= 0x8F:
        out(f"{head}DW_OP_breg{op - 0x70} {reader.sleb()} [${register_name(op - 0x70)}]\n")
    elif op == 0x90:
        register = reader.uleb()
        out(f"{head}DW_OP_regx {register} [${register_name(register)}]\n")
    elif op == 0x91:
        out(f"{head}DW_OP_fbreg {reader.sleb()}\n")
    elif op == 0x92:
        register = reader.uleb()
        out(f"{head}DW_OP_bregx register {register} [${register_name(register)}] offset {reader.sleb()}\n")
    elif op == 0x23:
        out(f"{head}DW_OP_plus_uconst {reader.uleb()}\n")
    elif op in (0x15, 0x94, 0x95):
        name = {0x15: "pick", 0x94: "deref_size", 0x95: "xderef_size"}[op]
        out(f"{head}DW_OP_{name} {reader.u8()}\n")
    elif op in (0x2F, 0x28):  # skip, bra: to the target's offset
        jump = reader.signed(2)
        out(f"{head}DW_OP_{'skip' if op == 0x2F else 'bra'} to {reader.pos + jump}\n")
    elif op == 0x93:
        out(f"{head}DW_OP_piece {reader.uleb()} (bytes)\n")
    elif op == 0x9D:
        size, at = reader.uleb(), reader.uleb()
        out(f"{head}DW_OP_bit_piece size {size} offset {at} (bits)\n")
    elif op in (0xA3, 0xF3):  # DW_OP_entry_value, DW_OP_GNU_entry_value: the inner one indented
        size = reader.uleb()
        out(f"{head}DW_OP_{'entry_value' if op == 0xA3 else 'GNU_entry_value'}\n")
        inner = _Reader(data[: reader.pos + size], reader.pos)
        while inner.pos < reader.pos + size:
            _operation(data[: reader.pos + size], inner, indent + 2, out)
        reader.pos += size
    elif op == 0xA1:
        out(f"{head}DW_OP_addrx {reader.uleb()}\n")
    elif op in _PLAIN:
        out(f"{head}DW_OP_{_PLAIN[op]}\n")
    else:
        raise Unsupported(f"DWARF operation 0x{op:02x} is not supported by aliceserver's `info address`.")
