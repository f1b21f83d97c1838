"""The DW_FORM table (forms.py) every raw DIE reader skips values by: each DWARF 5 form
encoded, then skipped to exactly its end; DWARF 5's index tables read from their bases."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf import forms
from aliceserver.errors import TargetError


def _uleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _encoded(form: int, value: int, osize: int, asize: int, version: int) -> bytes:
    """`value` in `form` as a compiler writes it (what a reader has to step over)."""
    code = forms.size_code(form, osize, asize, version)
    if code >= 0:
        return (value % (1 << (8 * code))).to_bytes(code, "little") if code else b""
    if code == forms.LEB:
        return _uleb(value)
    if code == forms.CSTRING:
        return b"x" * (value % 40) + b"\0"
    block = b"\xaa" * (value % 300)
    if code == forms.BLOCK_LEB:
        return _uleb(len(block)) + block
    width = {forms.BLOCK1: 1, forms.BLOCK2: 2, forms.BLOCK4: 4}[code]
    block = block[: (1 << (8 * width)) - 1]
    return len(block).to_bytes(width, "little") + block


# Every form DWARF 2-5 defines and the GNU extensions, but DW_FORM_indirect (its own form
# comes first, read by the caller).
ALL_FORMS = [f for f in range(0x01, 0x2D) if f not in (0x02, 0x16)] + [
    0x1F01,
    0x1F02,
    0x1F20,
    0x1F21,
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(ALL_FORMS), st.integers(0, 1 << 40)), max_size=12),
    st.sampled_from([4, 8]),
    st.sampled_from([2, 3, 4, 5]),
)
def test_every_form_is_skipped_to_its_end(
    values: list[tuple[int, int]], osize: int, version: int
) -> None:
    data = b"".join(_encoded(form, value, osize, 8, version) for form, value in values) + b"\x7f"
    pos = 0
    for form, value in values:
        expected = pos + len(_encoded(form, value, osize, 8, version))
        pos = forms.skip(data, pos, forms.size_code(form, osize, 8, version))
        assert pos == expected, hex(form)
    assert data[pos:] == b"\x7f"


@pytest.mark.parametrize(("form", "size"), [(0x25, 1), (0x26, 2), (0x27, 3), (0x28, 4), (0x29, 1),
                                            (0x2A, 2), (0x2B, 3), (0x2C, 4)])  # fmt: skip
def test_indexed_forms_have_their_fixed_sizes(form: int, size: int) -> None:
    assert forms.size_code(form, 4, 8, 5) == size


def test_list_and_index_forms_are_leb128() -> None:
    for form in (forms.STRX, forms.ADDRX, forms.LOCLISTX, forms.RNGLISTX):
        assert forms.size_code(form, 4, 8, 5) == forms.LEB


def test_an_unknown_form_is_a_target_error() -> None:
    with pytest.raises(TargetError, match="unknown DWARF form 0x2d"):
        forms.size_code(0x2D, 4, 8, 5)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, (1 << 32) - 1), min_size=1, max_size=20), st.data())
def test_index_tables_are_read_from_their_base(entries: list[int], data: st.DataObject) -> None:
    """A unit's offset table (after the section's header) as clang writes them: rnglistx and
    loclistx entries are relative to the base, strx entries are .debug_str offsets."""
    header = b"\x11" * forms.default_base(4, lists=True)
    lists = header + struct.pack(f"<{len(entries)}I", *entries)
    index = data.draw(st.integers(0, len(entries) - 1))
    base = len(header)
    assert forms.listx_offset(lists, base, index, 4) == base + entries[index]
    assert forms.strx_offset(lists, base, index, 4) == entries[index]
    assert forms.listx_offset(lists, base, len(entries), 4) is None  # past the table
    addresses = b"\0" * 8 + struct.pack(f"<{len(entries)}Q", *entries)
    assert forms.addrx(addresses, 8, index, 8) == entries[index]
    assert forms.addrx(addresses, 8, len(entries), 8) is None
