"""DIE-tree walks (dietree.py) on real programs whose DW_AT_sibling links were bent to point
back: pyelftools' iter_children() then loops for ever; our walks end with the children of
the sound file, and so do the readers built on them (scopes, globals, enumerators, inlined
copies, the global-name index)."""

from __future__ import annotations

import shutil
import struct
import subprocess
from collections.abc import Callable
from itertools import islice
from pathlib import Path

import pytest
from elftools.dwarf.die import DIE
from elftools.elf.elffile import ELFFile

from aliceserver.debuggers.source.scopevalues import cu_global_names
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.dwarf.dietree import children, parent_of
from aliceserver.debuggers.symbols.dwarf.globalnames import GlobalNameIndex
from aliceserver.debuggers.symbols.dwarf.inlines import InlineFinder
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.types import type_name
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.fuzz.symbols_worker import ZeroFrame
from tests.support.build import Builder

pytestmark = pytest.mark.timeout(60)  # a walk that loops fails here instead of hanging

# (DIE whose sibling link is bent, DIE it then points at): top-level DIEs of src_basic.c.
BENDS = {
    "to-itself": ("main", "main"),
    "to-an-earlier-die": ("factorial", "printf"),
    "enum-to-itself": ("color", "color"),
}

# The first loop's lexical block has a sibling link (the second loop's block follows it);
# `blocks`, the unit's last DIE, has none: pyelftools walks its subtree to find its end.
BLOCKS_C = """\
int blocks(int n) {
    int total = 0;
    for (int i = 0; i < n; i++) {
        int square = i * i;
        total += square;
    }
    for (int j = 0; j < n; j++) {
        int cube = j * j * j;
        total += cube;
    }
    return total;
}
int main(void) { return blocks(3) != 14; }
"""

Pick = Callable[[DIE], tuple[DIE, DIE]]  # top DIE -> (DIE to bend, DIE to point it at)


def _by_name(die: DIE) -> dict[str, DIE]:
    found = {}
    for child in die.iter_children():  # the sound file: pyelftools' own walk is the reference
        name = child.attributes.get("DW_AT_name")
        if name is not None:
            found[name.value.decode()] = child
    return found


def _offset(die: DIE | None) -> int | None:
    return None if die is None else die.offset


def _tree(die: DIE) -> list[int]:
    """Every DIE offset under `die`, depth first, through `children`."""
    out = []
    for child in children(die):
        out.append(child.offset)
        out += _tree(child)
    return out


def _bend(program: Path, out: Path, pick: Pick) -> tuple[list[int], list[int]]:
    """Write to `out` a copy of `program` whose first unit has one sibling link bent (see
    `pick`); the sound unit's top-level offsets and whole tree."""
    data = bytearray(program.read_bytes())
    with program.open("rb") as stream:
        elf = ELFFile(stream)
        section = elf.get_section_by_name(".debug_info")
        assert section is not None
        cu = next(elf.get_dwarf_info().iter_CUs())
        top = cu.get_top_DIE()
        bent, target = pick(top)
        link = bent.attributes["DW_AT_sibling"]
        assert link.form == "DW_FORM_ref4" and target.offset <= bent.offset
        at = section["sh_offset"] + link.offset
        data[at : at + 4] = struct.pack("<I", target.offset - cu.cu_offset)
        sound = [d.offset for d in top.iter_children()], _tree(top)
    out.write_bytes(bytes(data))
    return sound


@pytest.mark.parametrize("bend", BENDS, ids=list(BENDS))
def test_walks_end_on_a_sibling_link_pointing_back(builder: Builder, tmp_path: Path, bend: str) -> None:
    program = builder.build("src_basic", ("-g", "-O0"))
    bent_name, target_name = BENDS[bend]
    path = tmp_path / "bent"
    sound_children, sound_tree = _bend(
        program, path, lambda top: (_by_name(top)[bent_name], _by_name(top)[target_name])
    )
    image = ElfImage.load(str(path))
    units = DwarfUnits(image)
    try:
        cu = units.cu_at_offset(units.cu_offsets()[0])
        top = cu.get_top_DIE()
        # The hazard is real: pyelftools meets a DIE it already gave.
        first = [d.offset for d in islice(top.iter_children(), 4 * len(sound_children))]
        assert len(set(first)) < len(first)
        assert [d.offset for d in children(top)] == sound_children
        assert _tree(top) == sound_tree

        fresh = DwarfUnits(image)  # DIEs nobody walked yet: no parent known
        fresh_cu = fresh.cu_at_offset(fresh.cu_offsets()[0])
        leaf = fresh_cu.get_DIE_from_refaddr(sound_children[-1])
        param = fresh_cu.get_DIE_from_refaddr(leaf.offset + leaf.size)
        assert [_offset(parent_of(param)), _offset(parent_of(leaf))] == [leaf.offset, top.offset]
        fresh.close()

        symbols = ModuleSymbols(image, units)
        leaf_symbol = image.find_symbol("leaf")
        assert leaf_symbol is not None
        scope = symbols.frame_scope(ZeroFrame(leaf_symbol.address + 8))
        assert scope is not None
        assert [v.name for v in scope.arguments()] == ["x"]
        assert [v.name for v in scope.locals()] == ["doubled"]
        blue = symbols.find_global("BLUE", cu)
        assert blue is not None and type_name(blue.type) == "enum color"  # through its parent
        assert "global_counter" in cu_global_names(cu)
        assert InlineFinder(units)._copies(cu) == {}  # no inlined code, walked to the end
        # The start-up index of global names reads the raw bytes, with the same care.
        names = GlobalNameIndex(str(path), image.build_id, None).names()
        sound_names = GlobalNameIndex(str(program), image.build_id, None).names()
        assert names is not None and names.keys() == (sound_names or {}).keys()
    finally:
        units.close()


def test_scopes_walk_past_a_block_whose_sibling_link_points_back(tmp_path: Path) -> None:
    compiler = shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs gcc")
    (tmp_path / "blocks.c").write_text(BLOCKS_C)
    program = tmp_path / "blocks"
    subprocess.run([compiler, "-g", "-O0", "-o", str(program), "blocks.c"], cwd=tmp_path, check=True)

    def first_block(top: DIE) -> tuple[DIE, DIE]:
        function = _by_name(top)["blocks"]
        block = next(c for c in function.iter_children() if c.tag == "DW_TAG_lexical_block")
        return block, block

    _sound_children, sound_tree = _bend(program, tmp_path / "bent", first_block)
    sound_image, bent_image = ElfImage.load(str(program)), ElfImage.load(str(tmp_path / "bent"))
    sound, bent = ModuleSymbols(sound_image), ModuleSymbols(bent_image)
    try:
        top = bent.units.cu_at_offset(bent.units.cu_offsets()[0]).get_top_DIE()
        assert _tree(top) == sound_tree
        function = sound_image.find_symbol("blocks")
        assert function is not None
        seen: set[str] = set()
        for address in range(function.address, function.address + function.size):
            sound_scope = sound.frame_scope(ZeroFrame(address))
            bent_scope = bent.frame_scope(ZeroFrame(address))
            assert sound_scope is not None and bent_scope is not None
            names = [(v.name, v.depth) for v in sound_scope.locals()]
            assert [(v.name, v.depth) for v in bent_scope.locals()] == names, hex(address)
            seen.update(name for name, _ in names)
        assert {"total", "i", "square", "j", "cube"} <= seen  # both loops' blocks were read
    finally:
        sound.units.close()
        bent.units.close()
