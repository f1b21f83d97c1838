"""Rust expressions and values through the MI console against gdb 13 -nx on the same
program: structs, tuples, tuple structs, enums, slices, &str, chars, pointers, Box, paths,
tuple fields, indexing with gdb's bounds checks, literals with suffixes, `as`, ptype and
whatis in Rust syntax. print/r: what gdb shows without Rust's pretty printers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_rustc
from tests.support.core_backend import core_of_stop
from tests.support.gdb import gdb_env, gdb_outputs_at, gdb_path
from tests.support.mi_console import console_at

pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.timeout(180),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_rustc() is None, reason="rustc not installed"),
]

SOURCE = PROGRAMS_DIR / "rust_values.rs"
LOCATION = f"rust_values.rs:{marker_line(SOURCE, 'values')}"

VALUES = [
    "pt", "tuple", "nested", "pair", "unit", "unit_struct", "body", "level", "circle", "rect",
    "empty", "some", "none", "ok", "array", "slice", "text", "letter", "unicode", "byte",
    "signed", "big", "ubig", "single", "double", "flag", "reference", "raw", "constant",
    "boxed", "pt_ref", "*boxed", "*pt_ref", "*reference", "*raw", "&pt", "&array",
    "rust_values::GREETING", "rust_values::COUNTER", "rust_values::shapes::ORIGIN",
    "rust_values::shapes::area", "GREETING", "self::shapes::ORIGIN", "main",
    "rust_values::shapes::Level::Low", "nosuch", "rust_values::ANSWER",
]  # fmt: skip
EXPRESSIONS = [
    # tuple and tuple-struct fields, and gdb's errors for the wrong ones
    "body.pos.0", "body.pos.1", "tuple.2", "pair.0", "pair.1", "circle.0", "some.1",
    "rect.0", "rect.w", "rect.z", "pt.0", "tuple.5", "level.0", "pt.z",
    # indexing: arrays, slices, &str bytes, pointers; gdb's bounds checks
    "slice[0]", "slice[2]", "array[1]", "array[5]", "array[-1]", "slice[-1]", "text[1]",
    "text[10]", "reference[0]", "constant[0]", "*text",
    # references, Box, raw pointers
    "pt_ref.x", "boxed.x", "(*boxed).y", "*&pt", "&mut pt", "&slice[1]", "*&rust_values::shapes::ORIGIN",
    # enum variants in comparisons
    "level == rust_values::shapes::Level::High", "level == rust_values::shapes::Level::Mid",
    "body.level == rust_values::shapes::Level::Mid",
    # literals, suffixes, casts, operators
    "5u8", "10_000i64", "0xffu8", "300u8", "0o17", "0b101", "1e3", "2.5e-1f32", "1_000.5", "1.",
    "'x'", "'\\n'", "'\\u{e9}'", "b'a'", "true", "false", "true && false", "!true", "!5", "!byte",
    "-signed", "- -5", "5 / 2", "-7 / 2", "-7 % 3", "1 << 3", "5i8 * 100", "5 == 5u8",
    "byte as i8", "signed as u8", "pt.x as f64", "byte as char", "65 as char", "3.7 as i32",
    "-1 as u64", "letter as u32", "flag as i32", "level as i32", "raw as *const u8",
    "constant as *const i32", "5 as f32 / 2 as f32", "pt.x + pt.y", "ubig + 1", "big - 1",
    "sizeof(pt)", "sizeof(i32)", "()", "(5)", "$pc", "nosuch(1)", "1.0.0",
]  # fmt: skip
TYPES = [
    "ptype pt", "ptype tuple", "ptype pair", "ptype body", "ptype level", "ptype circle",
    "ptype some", "ptype slice", "ptype text", "ptype raw", "ptype boxed", "ptype unit",
    "ptype unit_struct", "ptype array", "ptype rust_values::shapes::area", "ptype 5u8",
    "whatis pt", "whatis tuple", "whatis slice", "whatis text", "whatis raw", "whatis boxed",
    "whatis letter", "whatis big", "whatis 5u8", "whatis 5", "whatis 3000000000",
    "whatis 1.5", "whatis pt.x as f64", "whatis pt.x + pt.y", "whatis 1u64 + 1",
    "whatis single + 1.0", "whatis pt.x == 3", "whatis 'a'", "whatis b'a'", "whatis sizeof(pt)",
    "whatis rust_values::shapes::area",
]  # fmt: skip
# Where we do better than gdb 13: `x.0.1` is two field accesses (gdb lexes a float and
# says "field name expected"), and `crate::` names the frame's crate (gdb 13 finds nothing).
BEYOND_GDB = {
    "print nested.1.0": "$1 = 3",
    "print tuple.0.0": "Anonymous field access is only allowed on tuples, tuple structs, and "
    "tuple-like enum variants",
    "print crate::shapes::Level::Mid": "$2 = rust_values::shapes::Level::Mid",
    "print level == crate::shapes::Level::High": "$3 = true",
    "print crate::GREETING": '$4 = "hello"',
}


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_rust("rust_values")


def ours(program: Path, commands: list[str], core: Path | None = None) -> list[str]:
    """Without our progress lines (a first search of every unit's global names)."""
    got = console_at(program, LOCATION, commands, gdb_env(), core)
    return ["\n".join(ln for ln in text.splitlines() if not ln.startswith("Indexing global names"))
            for text in got]


def gdb_outputs(program: Path, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, LOCATION, commands)


@pytest.mark.parametrize(
    "commands",
    [[f"print/r {v}" for v in VALUES], [f"print {e}" for e in EXPRESSIONS], TYPES],
    ids=["values", "expressions", "types"],
)
def test_console_matches_gdb(program: Path, commands: list[str], backend: str, tmp_path: Path) -> None:
    expected = gdb_outputs(program, commands)
    assert expected[0].startswith(("$1 = ", "type = ")), expected  # the oracle ran
    got = ours(program, commands, core=core_of_stop(backend, tmp_path))
    assert list(zip(commands, got, strict=True)) == list(zip(commands, expected, strict=True))


def test_info_locals_matches_gdb(program: Path, backend: str, tmp_path: Path) -> None:
    """Every local in gdb's Rust syntax; the slice is left to the pretty printers, which
    gdb -nx does not load (print/r above shows it raw)."""
    [expected] = gdb_outputs(program, ["info locals"])
    [got] = ours(program, ["info locals"], core=core_of_stop(backend, tmp_path))
    assert "pt = rust_values::shapes::Point {x: 3, y: -4}" in expected.splitlines()

    def without_slice(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("slice = ")]

    assert without_slice(got) == without_slice(expected)


def test_beyond_gdb(program: Path, backend: str, tmp_path: Path) -> None:
    commands = list(BEYOND_GDB)
    got = ours(program, commands, core=core_of_stop(backend, tmp_path))
    assert dict(zip(commands, got, strict=True)) == BEYOND_GDB


def test_before_run_reads_rust_like_gdb(program: Path) -> None:
    """Before `run` (no frame), a Rust program's expressions are Rust, as gdb's auto
    language takes main's: rustc's C `main` has no unit, the crate's `main` does (its
    DW_AT_main_subprogram). They were read as C (`Invalid number "5u8".`)."""
    from tests.support.batch import ex, normalized, ours, theirs

    before = ["print 5u8", "print 7 / 2", "whatis 1u64", "print 1 == 1", "print nosuch", "print rust_values::ANSWER"]
    # and after the program ended (no frame again: it was read in the held loader's, as C)
    args = ["-batch", "-nx", *ex(*before, "run", *before), str(program)]
    expected, got = theirs(args, program.parent), ours(args, program.parent)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert got.stdout.splitlines()[:4] == ["$1 = 5", "$2 = 3", "type = u64", "$3 = true"]
    said = [line for line in got.stderr.splitlines() if "symbol" in line]  # (gdb also warns of
    assert said == [line for line in expected.stderr.splitlines() if "symbol" in line]  # its missing printers)
    assert said == ["No symbol 'nosuch' in current context", "No symbol 'rust_values::ANSWER' in current context"] * 2
    assert got.stdout.splitlines()[-4:] == ["$4 = 5", "$5 = 3", "type = u64", "$6 = true"]
