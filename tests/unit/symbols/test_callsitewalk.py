"""callsitewalk: the call sites under each function read from raw bytes, against
callsites.sites_under's walk of the same DIEs through pyelftools."""

from __future__ import annotations

from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf import dies as dies_module
from aliceserver.debuggers.symbols.dwarf.callsites import return_pc, sites_under
from aliceserver.debuggers.symbols.dwarf.dieattrs import attr_value
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.dwarf.dietree import children
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_clang


def _check_against_pyelftools(path: Path) -> tuple[int, int]:
    """How many call sites and tail call sites were compared (every function with
    children, in every unit)."""
    units = DwarfUnits(ElfImage.load(str(path)))
    compared = tails = 0
    for offset in units.cu_offsets():
        cu = units.cu_at_offset(offset)
        for function in children(cu.get_top_DIE()):
            if function.tag != "DW_TAG_subprogram" or not function.has_children:
                continue
            expected: dict[int, int] = {}
            expected_tails: list[int] = []
            for site in sites_under(function):
                found = return_pc(site)
                if found is not None:
                    expected.setdefault(found, site.offset)
                if attr_value(site, "DW_AT_call_tail_call") or attr_value(site, "DW_AT_GNU_tail_call"):
                    expected_tails.append(site.offset)
            assert units.call_site_offsets(cu, function) == expected, hex(function.offset)
            assert units.tail_call_site_offsets(cu, function) == expected_tails, hex(function.offset)
            compared += len(expected)
            tails += len(expected_tails)
    units.close()
    return compared, tails


@pytest.mark.parametrize(
    ("program", "flags"),
    [("calls", ("-g", "-O2")), ("tail_entry", ("-g", "-O2")), ("entry_values", ("-g", "-O2")),
     ("src_inline", ("-g", "-O2")), ("entry_values", ("-gdwarf-4", "-O2"))],  # 4: DW_TAG_GNU_call_site
)  # fmt: skip
def test_gcc_call_sites_match_pyelftools(builder: Builder, program: str, flags: tuple[str, ...]) -> None:
    sites, tails = _check_against_pyelftools(builder.build(program, flags))
    assert sites > 0
    assert tails > 0 or program != "tail_entry"


@pytest.mark.skipif(find_clang() is None, reason="clang not installed: it writes DWARF 5's indexed forms")
@pytest.mark.parametrize("program", ["calls", "entry_values"])
def test_clang_call_sites_match_pyelftools(tmp_path_factory: pytest.TempPathFactory, program: str) -> None:
    """clang names return pcs through .debug_addr (DW_FORM_addrx)."""
    path = MoreBuilder(tmp_path_factory.mktemp("clang")).build_clang(program, ("-g", "-O2"))
    assert _check_against_pyelftools(path)[0] > 0


def test_what_the_raw_walk_cannot_read_is_left_to_pyelftools(
    builder: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = builder.build("calls", ("-g", "-O2"))
    units = DwarfUnits(ElfImage.load(str(path)))
    cu = units.cu_at_offset(units.cu_offsets()[0])
    function = next(d for d in children(cu.get_top_DIE()) if d.tag == "DW_TAG_subprogram" and d.has_children)
    monkeypatch.setattr(dies_module, "call_sites_under", lambda *args: None)
    assert units.call_site_offsets(cu, function) is None  # the caller walks the DIEs
    assert units.tail_call_site_offsets(cu, function) is None
    units.close()
