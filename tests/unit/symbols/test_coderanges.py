"""The raw readers behind DwarfUnits (coderanges.py, dwarffile.py) against pyelftools' own
parse of the same programs: the scopes around code addresses, the unit of an address."""

from __future__ import annotations

from pathlib import Path

import pytest
from elftools.common.exceptions import ELFError
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf import coderanges
from aliceserver.debuggers.symbols.dwarf import dies as dies_module
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_clang, find_cxx


def _addresses(image: ElfImage) -> list[int]:
    """The first, a middle and the last byte of every function."""
    return sorted(
        {a for _name, low, size in image.function_symbols() if size
         for a in (low, low + size // 2, low + size - 1)}
    )  # fmt: skip


def _check_against_pyelftools(path: Path) -> None:
    image = ElfImage.load(str(path))
    units = DwarfUnits(image)
    info = units.info
    assert info is not None
    aranges = info.get_aranges()
    compared = found_some = 0
    for address in _addresses(image):
        if aranges is not None:
            raw = units.cu_for_address(address)
            assert (raw.cu_offset if raw else None) == aranges.cu_offset_at_addr(address)
        cu = units.cu_for_address(address)
        if cu is None:
            continue
        assert units._raw_scopes(cu, address) is not None  # read raw, not by the fallback
        found = units.function_die_at(cu, address)
        reference = units._descend(cu.get_top_DIE(), address)  # pyelftools' own walk
        subprograms = [i for i, die in enumerate(reference) if die.tag == "DW_TAG_subprogram"]
        expected = reference[subprograms[-1] :] if subprograms else []
        scopes = found.scopes if found is not None else ()
        assert [d.offset for d in scopes] == [d.offset for d in expected], hex(address)
        compared += 1
        found_some += found is not None
    assert compared >= 6 and found_some >= 3
    units.close()


@pytest.mark.parametrize(
    ("program", "flags"),
    [("src_basic", ("-g", "-O0")), ("src_opt", ("-g", "-O2")), ("src_inline", ("-g", "-O2")),
     ("src_opt", ("-gdwarf-4", "-O2"))],
)  # fmt: skip
def test_c_scopes_match_pyelftools(builder: Builder, program: str, flags: tuple[str, ...]) -> None:
    _check_against_pyelftools(builder.build(program, flags))


@pytest.mark.skipif(find_cxx() is None, reason="g++ not installed")
@pytest.mark.parametrize("flags", [("-g", "-O0"), ("-g", "-O2")])
def test_cpp_scopes_in_namespaces_match_pyelftools(
    tmp_path_factory: pytest.TempPathFactory, flags: tuple[str, ...]
) -> None:
    _check_against_pyelftools(MoreBuilder(tmp_path_factory.mktemp("cpp")).build_cpp("src_cpp", flags))


CLANG_BUILDS = [("clang_forms", ".c", ("-g", "-O0")), ("clang_forms", ".c", ("-g", "-O2")),
                ("clang_forms", ".cpp", ("-g", "-O0")), ("src_inline", ".c", ("-g", "-O2")),
                ("clang_forms", ".c", ("-gdwarf-4", "-O2"))]  # fmt: skip


@pytest.mark.skipif(find_clang() is None, reason="clang not installed: it writes DWARF 5's indexed forms")
@pytest.mark.parametrize(("program", "suffix", "flags"), CLANG_BUILDS)
def test_clang_scopes_match_pyelftools(
    tmp_path_factory: pytest.TempPathFactory, program: str, suffix: str, flags: tuple[str, ...]
) -> None:
    """clang's DWARF 5 names code addresses through .debug_addr (DW_FORM_addrx): the raw
    scan reads them there, so every subprogram's span is known without pyelftools."""
    path = MoreBuilder(tmp_path_factory.mktemp("clang")).build_clang(program, flags, suffix)
    _check_against_pyelftools(path)
    units = DwarfUnits(ElfImage.load(str(path)))
    for offset in units.cu_offsets():
        cu = units.cu_at_offset(offset)
        unit = units._raw.read(".debug_info", offset, cu.size) if units._raw else b""
        addr = units.section(".debug_addr") or b""
        scopes = coderanges.unit_scopes(unit, offset, units.section(".debug_abbrev") or b"", addr)
        dies = [(cu.get_DIE_from_refaddr(offset + path[-1]), span) for path, span in scopes]
        low_high = [span for die, span in dies if "DW_AT_ranges" not in die.attributes]
        assert low_high and None not in low_high
    units.close()


def test_a_unit_is_scanned_once_for_all_its_addresses(
    builder: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The frames of a stack and the stops of a step are mostly in a few units.
    path = builder.build("src_basic", ("-g", "-O0"))
    image = ElfImage.load(str(path))
    units = DwarfUnits(image)
    scanned: list[int] = []
    real = dies_module.unit_scopes

    def counting(
        unit: bytes, cu_offset: int, abbrev: bytes, addr: bytes = b""
    ) -> list[coderanges.Scope]:
        scanned.append(cu_offset)
        return real(unit, cu_offset, abbrev, addr)

    monkeypatch.setattr(dies_module, "unit_scopes", counting)
    found = 0
    for address in _addresses(image):
        cu = units.cu_for_address(address)
        if cu is not None:
            found += units.function_die_at(cu, address) is not None
    assert found >= 6 and scanned and len(scanned) == len(set(scanned))
    units.close()


def test_a_closed_image_reads_no_more(builder: Builder) -> None:
    """Sections are read from the file as it was opened, while it is open; once closed, a
    DIE kept from before fails to parse rather than read whatever file took the descriptor."""
    path = builder.build("src_basic", ("-g", "-O0"))
    units = DwarfUnits(ElfImage.load(str(path)))
    cu = units.cu_at_offset(units.cu_offsets()[0])
    units.close()
    with pytest.raises((ValueError, ELFError), match="closed"):
        cu.get_top_DIE()


@given(st.lists(st.one_of(st.none(), st.tuples(st.integers(0, 60), st.integers(1, 30))), max_size=40),
       st.integers(-1, 100))  # fmt: skip
def test_the_scope_index_finds_what_a_scan_finds(spans: list[tuple[int, int] | None], address: int) -> None:
    # Nested, overlapping, empty and unread spans alike: the same paths, in DIE order.
    scopes: list[coderanges.Scope] = [
        ((n,), None if span is None else (span[0], span[0] + span[1] - 1)) for n, span in enumerate(spans)
    ]
    index = coderanges.ScopeIndex(scopes)
    assert index.candidates_at(address) == coderanges.candidates_at(scopes, address)
