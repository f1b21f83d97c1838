"""DWARF expressions decoded operation by operation for showing them (gdb's `info address`
and `info scope`); the front ends word them. Operation names come from pyelftools'
DW_OP_name2opcode, operands are read with the raw reading kit."""

from __future__ import annotations

import struct

from elftools.dwarf.dwarf_expr import DW_OP_name2opcode

from aliceserver.debuggers.storage import DwarfExpression, DwarfOperation
from aliceserver.debuggers.symbols.dwarf.rawread import RunawayLeb, sleb, uleb

# lo_user / hi_user share their codes with real operations (DW_OP_GNU_push_tls_address).
_NAMES = {code: name for name, code in DW_OP_name2opcode.items() if name not in ("DW_OP_lo_user", "DW_OP_hi_user")}
# The operands of each operation that has some: struct codes for fixed sizes, `u` / `s` for
# ULEB128 / SLEB128, `e` for a nested expression (its ULEB128 size, then its bytes).
_LAYOUTS: dict[str, str] = {
    "DW_OP_addr": "Q", "DW_OP_const1u": "B", "DW_OP_const1s": "b", "DW_OP_const2u": "H",
    "DW_OP_const2s": "h", "DW_OP_const4u": "I", "DW_OP_const4s": "i", "DW_OP_const8u": "Q",
    "DW_OP_const8s": "q", "DW_OP_constu": "u", "DW_OP_consts": "s", "DW_OP_pick": "B",
    "DW_OP_plus_uconst": "u", "DW_OP_bra": "h", "DW_OP_skip": "h", "DW_OP_regx": "u",
    "DW_OP_fbreg": "s", "DW_OP_bregx": "us", "DW_OP_piece": "u", "DW_OP_bit_piece": "uu",
    "DW_OP_deref_size": "B", "DW_OP_xderef_size": "B", "DW_OP_call2": "H", "DW_OP_call4": "I",
    "DW_OP_addrx": "u", "DW_OP_constx": "u", "DW_OP_convert": "u", "DW_OP_reinterpret": "u",
    "DW_OP_GNU_convert": "u", "DW_OP_GNU_addr_index": "u", "DW_OP_GNU_const_index": "u",
    "DW_OP_regval_type": "uu", "DW_OP_GNU_regval_type": "uu", "DW_OP_deref_type": "Bu",
    "DW_OP_GNU_deref_type": "Bu", "DW_OP_xderef_type": "Bu", "DW_OP_GNU_parameter_ref": "I",
    "DW_OP_entry_value": "e", "DW_OP_GNU_entry_value": "e",
    **{f"DW_OP_breg{n}": "s" for n in range(32)},
}  # fmt: skip
# Operands sized by the unit (offsets, addresses of 32-bit DWARF) or blocks: not read here.
_UNREAD = frozenset(("DW_OP_call_ref", "DW_OP_implicit_value", "DW_OP_implicit_pointer",
                     "DW_OP_GNU_implicit_pointer", "DW_OP_const_type", "DW_OP_GNU_const_type",
                     "DW_OP_GNU_variable_value", "DW_OP_WASM_location"))  # fmt: skip
_CORRUPT = "Corrupted DWARF expression."


def decode_expression(data: bytes) -> DwarfExpression:
    """Every operation of `data`; where one cannot be read, the error says why."""
    return _decode(data, 0, len(data))


def _decode(data: bytes, start: int, end: int) -> DwarfExpression:
    operations: list[DwarfOperation] = []
    bounded = data[:end]  # a nested expression must not read past its own end
    pos = start
    try:
        while pos < end:
            offset, code = pos, bounded[pos]
            name = _NAMES.get(code)
            if name is None:  # gdb's words (disassemble_dwarf_expression)
                return DwarfExpression(tuple(operations), f"Unrecognized DWARF opcode 0x{code:02x} at {offset}")
            if name in _UNREAD:
                words = f"DWARF operation {name} is not supported by aliceserver's `info address`."
                return DwarfExpression(tuple(operations), words, unsupported=True)
            pos += 1
            operands: list[int] = []
            inner: DwarfExpression | None = None
            for kind in _LAYOUTS.get(name, ""):
                if kind == "u":
                    value, pos = uleb(bounded, pos)
                elif kind == "s":
                    value, pos = sleb(bounded, pos)
                elif kind == "e":
                    value, pos = uleb(bounded, pos)
                    if pos + value > end:
                        raise IndexError("nested expression past its end")
                    inner, pos = _decode(data, pos, pos + value), pos + value
                else:
                    (value,) = struct.unpack_from("<" + kind, bounded, pos)
                    pos += struct.calcsize(kind)
                operands.append(value)
            operations.append(DwarfOperation(offset, pos, name, tuple(operands), _register(name, code, operands), inner))
    except (IndexError, struct.error, RunawayLeb):
        return DwarfExpression(tuple(operations), _CORRUPT)
    return DwarfExpression(tuple(operations))


def _register(name: str, code: int, operands: list[int]) -> str:
    """The register an operation names, gdb's name for it; "" for other operations."""
    # (the evaluator imported here: an MI session's first stop imports this module, to
    # tell which libraries have debug info, and never decodes an expression)
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import register_name

    if name in ("DW_OP_regx", "DW_OP_bregx"):
        return register_name(operands[0])
    if name.startswith(("DW_OP_reg", "DW_OP_breg")) and name[-1].isdigit():
        base = DW_OP_name2opcode["DW_OP_reg0" if name.startswith("DW_OP_reg") else "DW_OP_breg0"]
        return register_name(code - base)
    return ""
