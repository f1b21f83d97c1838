"""pyelftools' DIE with its attributes decoded from the DIE's bytes in plain Python.

pyelftools parses each attribute through a construct parser of its form: about 26 us a
DIE (CPython's first stop parses some 80; a struct's members, a scope's variables, an
inline chain, a few hundred more). RawDIE reads the same bytes by a plan made once per
abbreviation (each attribute's name, form and how to read it), about a fifth of that,
and gives the same DIE: tag, has_children, size, abbrev_code and each AttributeValue
(name, form, value, raw value, offset), values translated by pyelftools' own
_translate_attr_value where the form asks (strings, flags, indexed forms).

It serves the units of dwarffile's DWARFInfo (its lazy abbreviation tables hold the
plans). Anything else, and any DIE with a form it does not read (indirect, data16, the
3- and 4-byte indexes), near the end of the data or in big-endian DWARF, pyelftools parses
as before. `install` makes pyelftools' CompileUnit create RawDIEs (it names its DIE class
at each creation).
"""

from __future__ import annotations

from typing import Any

from elftools.dwarf import compileunit
from elftools.dwarf.abbrevtable import AbbrevDecl
from elftools.dwarf.die import DIE, AttributeValue

from aliceserver.debuggers.symbols.dwarf.rawread import sleb, uleb

_attribute = tuple.__new__  # AttributeValue(...) without its keyword-taking __new__ (a third of the time)
_WINDOW = 512  # bytes read at a DIE: most are a few dozen; a longer one is read again whole
_WHOLE = 1 << 16  # a DIE longer than this is pyelftools'

# How an attribute's raw value is read
FIXED, ULEB, SLEB, CSTRING, BLOCK, IMPLICIT, PRESENT = range(7)
# form -> (how, its size: bytes, or a block's length prefix: bytes, 0 for a ULEB128);
# "offset" and "address" sizes depend on the unit.
_FORMS: dict[str, tuple[int, int | str]] = {
    "DW_FORM_addr": (FIXED, "address"),
    "DW_FORM_data1": (FIXED, 1), "DW_FORM_data2": (FIXED, 2), "DW_FORM_data4": (FIXED, 4),
    "DW_FORM_data8": (FIXED, 8), "DW_FORM_sdata": (SLEB, 0), "DW_FORM_udata": (ULEB, 0),
    "DW_FORM_string": (CSTRING, 0), "DW_FORM_flag": (FIXED, 1), "DW_FORM_flag_present": (PRESENT, 0),
    "DW_FORM_strp": (FIXED, "offset"), "DW_FORM_line_strp": (FIXED, "offset"),
    "DW_FORM_strp_sup": (FIXED, "offset"), "DW_FORM_GNU_strp_alt": (FIXED, "offset"),
    "DW_FORM_GNU_ref_alt": (FIXED, "offset"), "DW_FORM_sec_offset": (FIXED, "offset"),
    "DW_FORM_ref1": (FIXED, 1), "DW_FORM_ref2": (FIXED, 2), "DW_FORM_ref4": (FIXED, 4),
    "DW_FORM_ref8": (FIXED, 8), "DW_FORM_ref_udata": (ULEB, 0), "DW_FORM_ref_addr": (FIXED, "ref_addr"),
    "DW_FORM_ref_sig8": (FIXED, 8), "DW_FORM_ref_sup4": (FIXED, 4), "DW_FORM_ref_sup8": (FIXED, 8),
    "DW_FORM_exprloc": (BLOCK, 0), "DW_FORM_block": (BLOCK, 0), "DW_FORM_block1": (BLOCK, 1),
    "DW_FORM_block2": (BLOCK, 2), "DW_FORM_block4": (BLOCK, 4),
    "DW_FORM_implicit_const": (IMPLICIT, 0),
    "DW_FORM_addrx": (ULEB, 0), "DW_FORM_addrx1": (FIXED, 1), "DW_FORM_addrx2": (FIXED, 2),
    "DW_FORM_strx": (ULEB, 0), "DW_FORM_strx1": (FIXED, 1), "DW_FORM_strx2": (FIXED, 2),
    "DW_FORM_loclistx": (ULEB, 0), "DW_FORM_rnglistx": (ULEB, 0),
}  # fmt: skip
# Forms whose value is not their raw value (DIE._translate_attr_value's)
_TRANSLATED = frozenset({
    "DW_FORM_strp", "DW_FORM_line_strp", "DW_FORM_strp_sup", "DW_FORM_GNU_strp_alt", "DW_FORM_flag",
    "DW_FORM_flag_present", "DW_FORM_addrx", "DW_FORM_addrx1", "DW_FORM_addrx2", "DW_FORM_strx",
    "DW_FORM_strx1", "DW_FORM_strx2", "DW_FORM_loclistx", "DW_FORM_rnglistx",
})  # fmt: skip

# One attribute's reading: name, form, how, size (or implicit value), translated
Step = tuple[str, str, int, int, bool]
# A unit's sizes a plan depends on: (offset size, address size, ref_addr size)
Shape = tuple[int, int, int]


def plan_of(decl: AbbrevDecl, shape: Shape) -> tuple[Step, ...] | None:
    """How to read the attributes of a DIE of abbreviation `decl` in a unit of `shape`;
    None where one of its forms is left to pyelftools."""
    if shape[1] not in (4, 8):
        return None  # (pyelftools reads any other address size as 8 bytes)
    sizes = {"offset": shape[0], "address": shape[1], "ref_addr": shape[2]}
    steps: list[Step] = []
    for spec in decl["attr_spec"]:
        how = _FORMS.get(spec.form)
        if how is None:
            return None
        kind, size = how
        if kind == IMPLICIT:
            value = spec.value
            if not isinstance(value, int):
                return None
            size = value
        steps.append((spec.name, spec.form, kind, sizes[size] if isinstance(size, str) else size,
                      spec.form in _TRANSLATED))  # fmt: skip
    return tuple(steps)


class RawDIE(DIE):
    """A DIE whose attributes are read by its abbreviation's plan (see the module)."""

    def _parse_DIE(self) -> None:  # noqa: N802 - pyelftools' name
        cu = self.cu
        table = cu.get_abbrev_table()
        plans = getattr(table, "plans", None)
        if plans is None or not cu.structs.little_endian:
            return super()._parse_DIE()
        stream = self.stream
        stream.seek(self.offset)
        data = stream.read(_WINDOW)
        parsed = self._read(data, table, plans)
        if parsed is None and len(data) == _WINDOW:  # maybe a long DIE: read again, whole
            stream.seek(self.offset)
            data = stream.read(_WHOLE)
            parsed = self._read(data, table, plans)
        if not parsed:  # (no plan; a DIE past the section's end: pyelftools says what is wrong)
            self.attributes.clear()
            self.tag = self.has_children = None
            return super()._parse_DIE()
        stream.seek(self.offset + self.size)  # where pyelftools' parse leaves the stream
        return None

    def _read(self, data: bytes, table: Any, plans: dict[tuple[int, Shape], tuple[Step, ...] | None]) -> bool | None:
        """Read the DIE from `data` (its bytes, or the first of them): True; None where
        `data` ends too soon, False where no plan reads it (more bytes would not help)."""
        try:
            code, pos = uleb(data, 0)
        except (IndexError, ValueError):
            return None
        self.abbrev_code = code
        if code == 0:
            self.size = pos
            return True
        cu = self.cu
        shape = _shape(cu)
        key = (code, shape)
        if key not in plans:
            try:
                plans[key] = plan_of(table.get_abbrev(code), shape)
            except KeyError:
                return False  # (pyelftools raises it)
        plan = plans[key]
        if plan is None:
            return False
        decl = table.get_abbrev(code)
        attributes: dict[str, AttributeValue] = {}
        base = self.offset
        try:
            for name, form, kind, size, translated in plan:
                at = pos
                raw: Any
                if kind == FIXED:
                    end = pos + size
                    if end > len(data):
                        return None
                    raw = int.from_bytes(data[pos:end], "little")
                    pos = end
                elif kind == ULEB:
                    raw, pos = uleb(data, pos)
                elif kind == SLEB:
                    raw, pos = sleb(data, pos)
                elif kind == CSTRING:
                    end = data.index(b"\0", pos)
                    raw, pos = data[pos:end], end + 1
                elif kind == BLOCK:
                    if size:
                        length = int.from_bytes(data[pos : pos + size], "little")
                        pos += size
                    else:
                        length, pos = uleb(data, pos)
                    end = pos + length
                    if pos > len(data) or end > len(data):
                        return None
                    raw, pos = list(data[pos:end]), end
                elif kind == IMPLICIT:
                    raw = size
                else:  # PRESENT
                    raw = b""
                value = self._translate_attr_value(form, raw) if translated else raw
                attributes[name] = _attribute(AttributeValue, (name, form, value, raw, base + at, 0))
        except (IndexError, ValueError):
            return None
        if pos > len(data):
            return None
        self.tag = decl["tag"]
        self.has_children = decl.has_children()
        self.attributes.update(attributes)
        self.size = pos
        return True


def _shape(cu: Any) -> Shape:
    structs = cu.structs
    offset = 8 if structs.dwarf_format == 64 else 4
    address = structs.address_size
    return offset, address, address if structs.dwarf_version == 2 else offset


def install() -> None:
    """Make pyelftools' compile units create RawDIEs (a subclass: every check of a DIE
    holds; a unit of another DWARFInfo gets pyelftools' parse from them)."""
    compileunit.DIE = RawDIE  # type: ignore[attr-defined]
