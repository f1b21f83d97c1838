"""Where a struct member lies: its byte offset, its location expression, and a bit-field's
bit size and offset, read from DW_AT_data_member_location and the bit attributes (DWARF 2
to 5)."""

from __future__ import annotations

from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dies import attr_value
from aliceserver.debuggers.symbols.dwarf.locexpr import ByteReader, EvaluationError
from aliceserver.debuggers.symbols.dwarf.types import Member, Type


def member_offset(die: DIE) -> int | None:
    """A member's byte offset: DW_AT_data_member_location as a constant or a constant
    expression; None for a virtual base (read from the vtable) or a DWARF 4 bit offset."""
    attr = die.attributes.get("DW_AT_data_member_location")
    if attr is None:
        return 0 if "DW_AT_data_bit_offset" not in die.attributes else None
    value = attr.value
    if isinstance(value, int):
        return value
    return _constant_offset(bytes(value))


def member_location(die: DIE) -> bytes | None:
    """The member's location expression, when it is one (a virtual base's)."""
    attr = die.attributes.get("DW_AT_data_member_location")
    return None if attr is None or isinstance(attr.value, int) else bytes(attr.value)


def _constant_offset(expr: bytes) -> int | None:
    # DWARF 2 style `DW_OP_plus_uconst N` (or constu N): an offset from the object start.
    r = ByteReader(expr)
    total = 0
    try:
        while not r.at_end():
            op = r.unsigned(1)
            if op in (0x23, 0x10):
                total += r.uleb()
            elif op == 0x11:
                total += r.sleb()
            else:
                return None  # virtual base: the offset is read from the vtable at run time
    except EvaluationError:
        return None
    return total


def place_bitfield(die: DIE, member: Member, mtype: Type) -> None:
    """Set a bit-field member's bit size and bit offset (lsb-first, within its byte)."""
    bit_size = attr_value(die, "DW_AT_bit_size")
    if not bit_size:
        return
    member.bit_size = int(bit_size)
    data_bit = attr_value(die, "DW_AT_data_bit_offset")
    if data_bit is not None:  # DWARF 4+: bits from the object start, little-endian numbering
        base = member.offset or 0
        total = base * 8 + int(data_bit)
        member.offset = total // 8
        member.bit_offset = total % 8
        return
    old = attr_value(die, "DW_AT_bit_offset")
    if old is not None:  # DWARF 2/3: the MSB's distance from the storage unit's MSB
        storage = int(attr_value(die, "DW_AT_byte_size") or mtype.size or 4)
        lsb = storage * 8 - int(old) - member.bit_size
        total = (member.offset or 0) * 8 + lsb
        member.offset = total // 8
        member.bit_offset = total % 8
