"""DWARF expressions decoded for display (opdecode) against pyelftools' own expression
parser, on every location and frame base of gcc -O2 output (entry values, pieces, stack
values), and what a corrupt or unknown expression says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from elftools.dwarf.dwarf_expr import DW_OP_name2opcode, DWARFExprParser
from elftools.dwarf.locationlists import LocationExpr, LocationParser
from elftools.elf.elffile import ELFFile

from aliceserver.debuggers.symbols.dwarf.opdecode import decode_expression

SOURCE = r"""
#include <stdio.h>
struct pair { long a, b; };
__attribute__((noinline)) static long mix(struct pair p, long k, double d) {
    long r = p.a * k + (long)d;
    printf("%ld\n", r);
    return r + p.b;
}
int main(int argc, char **argv) {
    struct pair p = { argc, (long)argv[0][0] };
    long total = 0;
    for (int i = 0; i < argc; i++)
        total += mix(p, i, 2.5 * i);
    return (int)total;
}
"""


def _expressions(path: Path) -> list[bytes]:
    """Every DW_AT_location and DW_AT_frame_base expression, location lists' included."""
    found: list[bytes] = []
    with open(path, "rb") as stream:
        dwarf = ELFFile(stream).get_dwarf_info()
        parser = LocationParser(dwarf.location_lists())
        for cu in dwarf.iter_CUs():
            for die in cu.iter_DIEs():
                for name in ("DW_AT_location", "DW_AT_frame_base"):
                    attr = die.attributes.get(name)
                    if attr is None or not LocationParser.attribute_has_location(attr, cu["version"]):
                        continue
                    parsed = parser.parse_from_attribute(attr, cu["version"], die)
                    entries = [parsed] if isinstance(parsed, LocationExpr) else parsed
                    found.extend(bytes(e.loc_expr) for e in entries if hasattr(e, "loc_expr"))
    return found


def test_decodes_as_pyelftools_does(ctools: Any) -> None:
    program = ctools.build(SOURCE, "-O2", "-g", name="opdecode")
    expressions = _expressions(program)
    assert len(expressions) > 10
    with open(program, "rb") as stream:
        structs = ELFFile(stream).get_dwarf_info().structs
    theirs_parser = DWARFExprParser(structs)
    names = set()
    for data in expressions:
        ours = decode_expression(data)
        assert not ours.error, (data.hex(), ours.error)
        theirs = theirs_parser.parse_expr(data)
        assert [op.op_name for op in theirs] == [op.name for op in ours.operations]
        assert [op.offset for op in theirs] == [op.offset for op in ours.operations]
        for mine, their in zip(ours.operations, theirs, strict=True):
            names.add(mine.name)
            if mine.inner is not None:  # entry values: the inner expression, decoded alike
                assert [op.op_name for op in their.args[0]] == [op.name for op in mine.inner.operations]
            elif mine.name not in ("DW_OP_deref_size", "DW_OP_xderef_size"):  # pyelftools reads them signed
                assert list(mine.operands) == list(their.args), mine.name
            if mine.name.startswith("DW_OP_breg") and mine.name[-1].isdigit():
                assert mine.register  # gdb's register name
    assert {"DW_OP_entry_value", "DW_OP_stack_value"} <= names or "DW_OP_GNU_entry_value" in names


def test_errors_keep_what_was_decoded() -> None:
    fbreg = DW_OP_name2opcode["DW_OP_fbreg"]
    good = decode_expression(bytes([fbreg, 0x6C]))  # DW_OP_fbreg -20
    assert [(op.name, op.operands) for op in good.operations] == [("DW_OP_fbreg", (-20,))]
    cut = decode_expression(bytes([fbreg, 0x6C, fbreg, 0x80]))  # a LEB128 without its end
    assert len(cut.operations) == 1 and cut.error == "Corrupted DWARF expression." and not cut.unsupported
    unknown = decode_expression(bytes([fbreg, 0x6C, 0x01]))
    assert unknown.error == "Unrecognized DWARF opcode 0x01 at 2"
    unread = decode_expression(bytes([DW_OP_name2opcode["DW_OP_implicit_value"], 1, 0]))
    assert unread.unsupported and "DW_OP_implicit_value" in unread.error
    nested = decode_expression(bytes([DW_OP_name2opcode["DW_OP_entry_value"], 5, 0x55]))  # size past the end
    assert nested.operations == () and nested.error == "Corrupted DWARF expression."
