"""A symbol's DWARF location in gdb's words (dwarf2/loc.c's locexpr_describe_location_1
and disassemble_dwarf_expression): `a variable in $rdx`, `the constant 3`, or
`a complex DWARF expression:` with one line per operation (`     0: DW_OP_fbreg -20`).
The engine decodes the expression (storage.DwarfExpression); this only words it."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.debuggers.storage import DwarfExpression, DwarfOperation
from aliceserver.errors import ProtocolError, Unsupported

_PIECES = ("DW_OP_piece", "DW_OP_bit_piece")
_SIGNED_CONSTANTS = ("DW_OP_const1s", "DW_OP_const2s", "DW_OP_const4s", "DW_OP_const8s", "DW_OP_consts")
# Operations shown as their name and their one number (gdb prints these so).
_ONE_NUMBER = frozenset(("DW_OP_const1u", "DW_OP_const2u", "DW_OP_const4u", "DW_OP_const8u", "DW_OP_constu",
                         "DW_OP_fbreg", "DW_OP_plus_uconst", "DW_OP_pick", "DW_OP_deref_size",
                         "DW_OP_xderef_size", "DW_OP_addrx", *_SIGNED_CONSTANTS))  # fmt: skip


def _at(expression: DwarfExpression, index: int) -> DwarfOperation:
    """Operation `index`; past the decoded ones, the error that stopped decoding."""
    if index < len(expression.operations):
        return expression.operations[index]
    if expression.unsupported:
        raise Unsupported(expression.error)
    raise ProtocolError(expression.error or "Corrupted DWARF expression.")


def _more(expression: DwarfExpression, index: int) -> bool:
    return index < len(expression.operations) or bool(expression.error)


def describe_location(expression: DwarfExpression, frame_base: DwarfExpression) -> str:
    """What gdb says after `is ` for a location expression (without the final period)."""
    text: list[str] = []
    index = 0
    while _more(expression, index):
        here = index
        if here:
            text.append(", and ")
        nice = _describe_piece(expression, index, frame_base)
        disassembled = nice is None and _at(expression, index).name not in _PIECES
        if nice is not None:
            words, index = nice
            text.append(words)
        elif disassembled:
            text.append("a complex DWARF expression:\n")
            lines, index = _disassemble(expression, index)
            text.append(lines)
        if _more(expression, index):
            empty = index == here
            if disassembled:
                text.append("   ")
            op = _at(expression, index)
            index += 1
            if op.name == "DW_OP_piece":
                size = op.operands[0]
                text.append(f"an empty {size}-byte piece" if empty else f" [{size}-byte piece]")
            elif op.name == "DW_OP_bit_piece":
                bits, offset = op.operands
                text.append(f"an empty {bits}-bit piece" if empty else f" [{bits}-bit piece, offset {offset} bits]")
            else:
                raise ProtocolError("Corrupted DWARF2 expression for symbol.")
    return "".join(text)


def _ends_piece(expression: DwarfExpression, index: int) -> bool:
    operations = expression.operations
    if index < len(operations):
        return operations[index].name in _PIECES
    return not expression.error


def _is_register(op: DwarfOperation, family: str) -> bool:
    """DW_OP_reg0..31 (`family` "reg") or DW_OP_breg0..31 ("breg")."""
    return op.name.startswith("DW_OP_" + family) and op.name[-1].isdigit()


def _describe_piece(expression: DwarfExpression, index: int, frame_base: DwarfExpression) -> tuple[str, int] | None:
    """locexpr_describe_location_piece: one simple piece in words and the index after it,
    else None (nothing read)."""
    op = _at(expression, index)
    if _is_register(op, "reg") or op.name == "DW_OP_regx":
        return f"a variable in ${op.register}", index + 1
    if op.name == "DW_OP_fbreg":  # words only when the frame base is a register
        if not _ends_piece(expression, index + 1) or not _more(frame_base, 0):
            return None
        base = _at(frame_base, 0)
        if _is_register(base, "breg"):
            base_offset = base.operands[0]
        elif _is_register(base, "reg"):
            base_offset = 0
        else:
            return None
        words = f"a variable at frame base reg ${base.register} offset {base_offset}+{op.operands[0]}"
        return words, index + 1
    if _is_register(op, "breg"):  # alone
        if _ends_piece(expression, index + 1):
            return f"a variable at offset {op.operands[0]} from base reg ${op.register}", index + 1
        return None
    following = expression.operations[index + 1 : index + 2]
    if op.name.startswith("DW_OP_lit") and following and following[0].name == "DW_OP_stack_value":
        return f"the constant {op.name[len('DW_OP_lit') :]}", index + 2
    return None


def _disassemble(expression: DwarfExpression, index: int) -> tuple[str, int]:
    """Operations from `index` to the next piece (or the end), one line each; and the index
    where it stopped."""
    lines: list[str] = []
    while _more(expression, index) and _at(expression, index).name not in _PIECES:
        _operation(_at(expression, index), 0, lines.append)
        index += 1
    return "".join(lines), index


def _operation(op: DwarfOperation, indent: int, out: Callable[[str], None]) -> None:
    head = f"  {op.offset:>{indent + 4}}: {op.name}"
    name = op.name
    if name == "DW_OP_addr":
        out(f"{head} 0x{op.operands[0]:x}\n")
    elif name in _ONE_NUMBER:
        out(f"{head} {op.operands[0]}\n")
    elif _is_register(op, "reg"):
        out(f"{head} [${op.register}]\n")
    elif _is_register(op, "breg"):
        out(f"{head} {op.operands[0]} [${op.register}]\n")
    elif name == "DW_OP_regx":
        out(f"{head} {op.operands[0]} [${op.register}]\n")
    elif name == "DW_OP_bregx":
        register, offset = op.operands
        out(f"{head} register {register} [${op.register}] offset {offset}\n")
    elif name in ("DW_OP_skip", "DW_OP_bra"):  # to the target's offset
        out(f"{head} to {op.end + op.operands[0]}\n")
    elif name == "DW_OP_piece":
        out(f"{head} {op.operands[0]} (bytes)\n")
    elif name == "DW_OP_bit_piece":
        size, at = op.operands
        out(f"{head} size {size} offset {at} (bits)\n")
    elif op.inner is not None:  # DW_OP_entry_value, DW_OP_GNU_entry_value: the inner one indented
        out(f"{head}\n")
        index = 0
        while _more(op.inner, index):
            _operation(_at(op.inner, index), indent + 2, out)
            index += 1
    elif not op.operands:
        out(f"{head}\n")
    else:
        raise Unsupported(f"DWARF operation {name} is not supported by aliceserver's `info address`.")
