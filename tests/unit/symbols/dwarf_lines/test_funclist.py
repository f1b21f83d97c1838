"""FunctionList.matching: the functions whose name holds a text, found in the joined names,
against a plain scan of every name."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf.funclist import (
    FunctionList,
    are_name_starts,
    name_starts,
    pack_functions,
)

_NAMES = st.text(alphabet="abc_:Z0\0", min_size=1, max_size=8).filter(lambda n: "\0" not in n)


def _expected(
    symbols: list[tuple[str, int, int]], needle: str, demangled: dict[str, str]
) -> list[tuple[str, str, int, int]]:
    kept = sorted(symbols, key=lambda s: (s[1], s[0]))
    return [
        (name, demangled.get(name, name), low, size)
        for name, low, size in kept
        if needle in name or (name in demangled and needle in demangled[name])
    ]


@given(
    names=st.lists(_NAMES, max_size=30),
    needle=st.text(alphabet="abc_:Z0\0", max_size=4),
    demangle_some=st.booleans(),
)
def test_matching_finds_what_a_scan_of_every_name_finds(
    names: list[str], needle: str, demangle_some: bool
) -> None:
    symbols = [(name, 0x1000 + 16 * i, 8) for i, name in enumerate(names)]
    demangled = {name: f"ns::{name}()" for name in names[::2]} if demangle_some else {}
    packed = pack_functions(symbols)
    found = list(FunctionList(packed).matching(needle, demangled))
    assert found == _expected(symbols, needle, demangled)
    starts = name_starts(packed)  # as the index payload keeps them
    assert are_name_starts(starts, packed)
    assert list(FunctionList(packed, starts).matching(needle, demangled)) == found


def test_matching_names_sharing_text_and_repeated_names() -> None:
    symbols = [("PyList_Append", 0x10, 4), ("PyList_AppendItem", 0x20, 4), ("Append", 0x30, 4),
               ("Append", 0x40, 4), ("other", 0x50, 4)]  # fmt: skip
    functions = FunctionList(pack_functions(symbols))
    assert [f[2] for f in functions.matching("Append", {})] == [0x10, 0x20, 0x30, 0x40]
    assert [f[0] for f in functions.matching("t_A", {})] == ["PyList_Append", "PyList_AppendItem"]
    assert list(functions.matching("nowhere", {})) == []
    assert list(functions.matching("Append\0other", {})) == []
    shown = {"other": "ns::Append_like()"}
    assert [f[1] for f in functions.matching("Append_", shown)] == ["ns::Append_like()"]


def test_damaged_name_starts_are_not_taken() -> None:
    packed = pack_functions([("alpha", 0x10, 4), ("beta", 0x20, 4), ("gamma", 0x30, 4)])
    starts = name_starts(packed)
    assert are_name_starts(starts, packed) and len(starts) == 3 * 8
    assert not are_name_starts(starts[:-8], packed)  # one name short
    assert not are_name_starts(b"\1" + starts[1:], packed)  # the first not at 0
    assert not are_name_starts(starts[:-8] + (99).to_bytes(8, "little"), packed)  # past the end
    assert not are_name_starts(list(starts), packed)
