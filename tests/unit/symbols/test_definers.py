"""break NAME's inline search keeps, of the units whose bytes name NAME, those that define
it. definers.may_define rules most callers out from where the name's bytes lie, without the
top-level DIE walk (globalnames.units_defining); the answer must stay the walk's. Checked on
real gcc builds at -O2 (C and C++, DWARF 4 and 5, -gstrict-dwarf), with names gcc writes
inline in .debug_info (DW_FORM_string: up to 3 characters) and through .debug_str. The same
reading drops the units holding no abstract instance of NAME before pyelftools opens them."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf.abbrevs import AbbrevCache
from aliceserver.debuggers.symbols.dwarf.coderanges import unit_offsets
from aliceserver.debuggers.symbols.dwarf.definers import Undecided, may_define
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.dwarf.globalnames import units_defining
from aliceserver.debuggers.symbols.dwarf.inlines import (
    InlineFinder,
    _string_offsets,
    _units_with_abstract,
    units_defining_leaf,
    units_mentioning,
)
from aliceserver.debuggers.symbols.dwarf.rawread import unit_length
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.elf import ElfImage

_HEADER = """
static inline int ab(int x) { return x * 7 + 1; }
int compute(int x);
"""
_DEFINES = """#include "util.h"
int compute(int x) { return x * 3 + (x >> 2); }
int use_a(int x) { return compute(x) + ab(x); }
"""
_CALLS = """#include "util.h"
int use_{i}(int x) {{ return compute(x + {i}) + ab(x - {i}); }}
"""
_CPP_CLASS = "struct Klass { int method(int x); int mm(int x); };\n"
_CPP_DEFINES = """#include "klass.h"
int Klass::method(int x) { return x * 5 + 2; }
int Klass::mm(int x) { return x - 9; }
int use_d(int x) { Klass k; return k.method(x) + k.mm(x); }
"""
_CPP_CALLS = """#include "klass.h"
int use_{i}(int x) {{ Klass k; return k.method(x + {i}) + k.mm(x); }}
"""
_MAIN = "int main(void) { return 0; }\n"
_INLINED = {"c": ("ab", "compute"), "cpp": ("method",)}  # copies at -O2 (by language)


def _build(root: Path, compiler: str, suffix: str, sources: dict[str, str], flags: list[str]) -> Path:
    root.mkdir()
    for name, text in sources.items():
        (root / name).write_text(text)
    units = [name for name in sources if name.endswith(suffix)]
    subprocess.run([compiler, "-g", "-O2", *flags, *units, "-o", "prog"], cwd=root, check=True)
    return root / "prog"


_VARIANTS = {
    "c-dwarf5": ("gcc", ".c", ["-gdwarf-5"]),
    "c-dwarf4-strict": ("gcc", ".c", ["-gdwarf-4", "-gstrict-dwarf"]),
    "cpp-dwarf5": ("g++", ".cpp", ["-gdwarf-5"]),
}


@pytest.fixture(scope="module", params=sorted(_VARIANTS))
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    compiler, suffix, flags = _VARIANTS[request.param]
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    root = tmp_path_factory.mktemp("definers") / request.param
    if suffix == ".c":
        sources = {"util.h": _HEADER, "a.c": _DEFINES, "main.c": _MAIN}
        sources |= {f"u{i}.c": _CALLS.format(i=i) for i in range(4)}
    else:
        sources = {"klass.h": _CPP_CLASS, "d.cpp": _CPP_DEFINES, "main.cpp": _MAIN}
        sources |= {f"u{i}.cpp": _CPP_CALLS.format(i=i) for i in range(4)}
    return request.param, _build(root, compiler, suffix, sources, flags)


def _walked(sections: ElfSections, candidates: list[int], leaf: str) -> list[int]:
    """The answer of the top-level walk alone, unit by unit (as before may_define)."""
    strings = (sections.get(".debug_str"), sections.get(".debug_line_str"),
               sections.get(".debug_str_offsets"))  # fmt: skip
    found = []
    for offset in candidates:
        length, _osize, body = unit_length(sections.read(".debug_info", offset, 12), 0)
        unit = sections.read(".debug_info", offset, body + length)
        defining = units_defining(unit, sections.get(".debug_abbrev"), strings, [0], leaf)
        assert defining is not None
        if defining:
            found.append(offset)
    return found


_NAMES = ("compute", "ab", "use_a", "use_1", "main", "method", "mm", "Klass", "x")


@pytest.mark.parametrize("leaf", _NAMES)
def test_defining_units_are_the_walks(program: tuple[str, Path], leaf: str) -> None:
    sections = ElfSections(str(program[1]))
    candidates = units_mentioning(sections, unit_offsets(sections), leaf) or []
    assert units_defining_leaf(sections, candidates, leaf) == _walked(sections, candidates, leaf)


def _decisions(sections: ElfSections, leaf: str) -> dict[int, bool]:
    """may_define's answer for each unit that names `leaf`."""
    needle = leaf.encode()
    offsets = frozenset(_string_offsets(sections, needle))
    cache = AbbrevCache(sections.get(".debug_abbrev"))
    answers = {}
    for offset in units_mentioning(sections, unit_offsets(sections), leaf) or []:
        length, _osize, body = unit_length(sections.read(".debug_info", offset, 12), 0)
        unit = sections.read(".debug_info", offset, body + length)
        try:
            answers[offset] = may_define(unit, cache, (needle + b"\0", needle + b"<"), offsets)
        except (Undecided, struct.error) as exc:
            pytest.fail(f"unit {offset:#x} undecided: {exc}")
    return answers


def test_callers_are_ruled_out_without_a_walk(program: tuple[str, Path]) -> None:
    """The defining unit may define the function; the 4 units that only call it do not."""
    variant, path = program
    sections = ElfSections(str(path))
    for leaf in ("compute",) if variant.startswith("c-") else ("method", "mm"):
        answers = _decisions(sections, leaf)
        defining = _walked(sections, sorted(answers), leaf)
        assert len(defining) == 1 and len(answers) >= 5, (leaf, answers)
        assert [unit for unit, may in answers.items() if may] == defining, (leaf, answers)


def test_a_short_name_written_inline_is_found(program: tuple[str, Path]) -> None:
    """gcc writes `ab` in .debug_info itself (DW_FORM_string); every unit inlining the
    static inline function defines it."""
    variant, path = program
    if not variant.startswith("c-"):
        pytest.skip("C only")
    sections = ElfSections(str(path))
    assert b"ab\0" in sections.get(".debug_info")
    answers = _decisions(sections, "ab")
    assert len(answers) == 5 and all(answers.values()), answers


@pytest.mark.parametrize("leaf", _NAMES)
def test_units_without_an_abstract_instance_are_dropped_alone(program: tuple[str, Path], leaf: str) -> None:
    """Dropping the units with no abstract instance named `leaf` leaves break's inlined
    copies as they were, and drops the units of a function never inlined."""
    sections = ElfSections(str(program[1]))
    candidates = units_mentioning(sections, unit_offsets(sections), leaf) or []
    kept = _units_with_abstract(sections, candidates, leaf)
    finder = InlineFinder(DwarfUnits(ElfImage.load(str(program[1]))))
    assert finder.sites(kept, leaf) == finder.sites(candidates, leaf)
    if leaf in _INLINED[program[0].split("-")[0]]:
        assert finder.sites(kept, leaf), "inlined at -O2"
    if leaf.startswith("use_") or leaf == "main":  # called, never inlined: no abstract instance
        assert kept == []
