"""Rust std values through the toolchain's gdb pretty printers (`lib/rustlib/etc`, found
through `rustc --print sysroot` as rust-gdb finds them), exactly as gdb 13 shows them with
the same printers loaded the way rust-gdb loads them: `print`, `info locals`, expressions
over those values in gdb's Rust words, MI var objects (-enable-pretty-printing, paged
-var-list-children), DAP children against lldb-vscode-16, and breakpoint conditions
written in Rust."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_rustc
from tests.support.core_backend import core_of_stop
from tests.support.gdb import gdb_env, gdb_path, run_gdb
from tests.support.mi_console import console_at

pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_rustc() is None, reason="rustc not installed"),
]

SOURCE = PROGRAMS_DIR / "rust_printers.rs"
LOCATION = f"rust_printers.rs:{marker_line(SOURCE, 'main')}"
VARIABLES = [
    "vi", "vs", "vp", "empty_vec", "string", "empty_string", "text", "slice", "mut_slice",
    "array", "some", "none", "some_string", "ok", "err", "boxed", "boxed_point", "rc", "rc2",
    "weak", "arc", "cell", "refcell", "borrowed", "guard", "hm", "hs", "empty_map", "bm", "bs",
    "dq", "nested", "map_vec", "holder", "pair",
]  # fmt: skip
EXPRESSIONS = [
    "vi[0]", "vs[1]", "*boxed", "*boxed_point", "boxed_point.x", "vi.len()", "string.len()",
    "text.len()", "some.len()", "pair.len()", "slice[1]", "mut_slice[0]", "slice[5]",
    "holder.items", "holder.name", "holder.counts", "*&vi", "vp", "refcell", "map_vec",
    "*vi", "*string", "*text",
    "print/r vi", "print/r some",
]  # fmt: skip


def rust_etc() -> str | None:
    rustc = find_rustc()
    if rustc is None:
        return None
    sysroot = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True,
                             check=False).stdout.strip()  # fmt: skip
    etc = Path(sysroot) / "lib" / "rustlib" / "etc"
    return str(etc) if (etc / "gdb_lookup.py").is_file() else None


def rust_gdb_options() -> list[str]:
    """What rust-gdb adds: the printers' directory trusted and searched for the
    `.debug_gdb_scripts` entry `gdb_load_rust_pretty_printers.py`."""
    etc = rust_etc()
    if etc is None:
        pytest.skip("the Rust toolchain ships no gdb printers (lib/rustlib/etc)")
    return ["-iex", f"add-auto-load-safe-path {etc}", "-iex", f"directory {etc}"]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_rust("rust_printers")


def gdb_outputs(program: Path, commands: list[str], location: str = LOCATION) -> list[str]:
    replies = run_gdb(program, [f"break {location}", "run", *commands], env=gdb_env(),
                      options=rust_gdb_options())  # fmt: skip
    return [(r.error if r.error else r.output).strip("\n") for r in replies[2:]]


def without_stderr(text: str) -> str:
    """gdb writes a failing printer's `Python Exception ...` line to stderr, before the
    raw value; ours logs it. The value on stdout is the same."""
    return text.replace("Python Exception <class 'gdb.error'>: Attempt to take contents of a "
                        "non-pointer value.\n", "")  # fmt: skip


def ours(program: Path, commands: list[str], location: str = LOCATION, core: Path | None = None) -> list[str]:
    """Without our progress lines (a first search of every unit's global names)."""
    got = console_at(program, location, commands, gdb_env(), core)
    return ["\n".join(ln for ln in text.splitlines() if not ln.startswith("Indexing global names"))
            for text in got]


def test_printers_load(program: Path) -> None:
    [listing, vector] = gdb_outputs(program, ["info pretty-printer", "print vi"])
    assert "StdVec" in listing and vector == "$1 = Vec(size=3) = {1, 2, 3}", (listing, vector)


def test_print_matches_gdb(program: Path, backend: str, tmp_path: Path) -> None:
    commands = [f"print {name}" for name in VARIABLES]
    expected = [without_stderr(text) for text in gdb_outputs(program, commands)]
    assert expected[0] == "$1 = Vec(size=3) = {1, 2, 3}"  # the printers ran in gdb
    got = ours(program, commands, core=core_of_stop(backend, tmp_path))
    assert list(zip(commands, got, strict=True)) == list(zip(commands, expected, strict=True))


def test_info_locals_matches_gdb(program: Path, backend: str, tmp_path: Path) -> None:
    [expected] = gdb_outputs(program, ["info locals"])
    [got] = ours(program, ["info locals"], core=core_of_stop(backend, tmp_path))
    assert "bm = BTreeMap(size=2) = {[1] = \"one\", [2] = \"two\"}" in expected.splitlines()
    assert got.splitlines() == without_stderr(expected).splitlines()


def test_expressions_match_gdb(program: Path, backend: str, tmp_path: Path) -> None:
    """`v[0]` on a Vec and `v.len()` are gdb's Rust errors (no xmethods, no Deref)."""
    commands = [e if e.startswith("print") else f"print {e}" for e in EXPRESSIONS]
    expected = gdb_outputs(program, commands)
    assert expected[0] == "Cannot subscript non-array type"
    got = ours(program, commands, core=core_of_stop(backend, tmp_path))
    assert list(zip(commands, got, strict=True)) == list(zip(commands, expected, strict=True))


# --- MI var objects, against gdb 13 ------------------------------------------------------
MI_SCRIPT = [
    "-enable-pretty-printing",
    "-var-create - * vi", "-var-create - * vs", "-var-create - * hm", "-var-create - * bm",
    "-var-create - * string", "-var-create - * rc", "-var-create - * holder",
    "-var-create - * dq", "-var-create - * empty_vec", "-var-create - * map_vec",
    "-var-create - * slice", "-var-create - * refcell", "-var-create - * bs",
    "-var-list-children --all-values var1 0 1", "-var-list-children --all-values var1 1 2",
    "-var-info-num-children var1", "-var-list-children --all-values var1",
    "-var-list-children --all-values var2", "-var-list-children --all-values var3",
    "-var-list-children --all-values var4", "-var-list-children --all-values var5",
    "-var-list-children --all-values var6", "-var-list-children --all-values var7",
    "-var-list-children --all-values var7.items", "-var-list-children --all-values var7.counts",
    "-var-list-children --all-values var8 1 3", "-var-list-children --all-values var9",
    "-var-list-children --all-values var10", "-var-list-children --all-values var10.val0",
    "-var-list-children --all-values var11", "-var-list-children --all-values var12",
    "-var-list-children --all-values var12.value", "-var-list-children --all-values var13",
    "-var-set-update-range var8 0 2", "-var-update --all-values *",
    "-data-evaluate-expression hm", "-data-evaluate-expression holder",
]  # fmt: skip
GDB_MI = [str(gdb_path()), "-nx", "-q", "-i=mi"]
OURS_MI = [sys.executable, "-m", "aliceserver", "-nx", "-q", "-i=mi"]


def mi_replies(argv: list[str], program: Path, script: list[str]) -> list[str]:
    lines = [f"-break-insert {LOCATION}", "-exec-run", *script, "-gdb-exit"]
    done = subprocess.run(argv + [str(program)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=120, env=gdb_env())  # fmt: skip
    return [line for line in done.stdout.splitlines() if line.startswith(("^done", "^error"))][1:]


def test_var_objects_match_gdb(program: Path) -> None:
    expected = mi_replies([*GDB_MI, *rust_gdb_options()], program, MI_SCRIPT)
    got = mi_replies(OURS_MI, program, MI_SCRIPT)
    assert 'displayhint="array",dynamic="1"' in expected[1]  # gdb ran the printers
    assert list(zip(MI_SCRIPT, got, strict=True)) == list(zip(MI_SCRIPT, expected, strict=True))


def test_gdb_api_on_rust_values(program: Path, backend: str, tmp_path: Path) -> None:
    """What the printers' Python sees, as gdb 13's: a Rust enum's fields (the discriminant
    unnamed and artificial, then each variant; a value's type only the active one), a
    variant read by field, a struct cast to another in memory, template arguments."""
    some = 'gdb.parse_and_eval("some")'
    option = 'gdb.lookup_type("core::option::Option<i32>")'
    commands = [
        f"python print([(f.name, f.artificial, f.bitpos) for f in {some}.type.fields()])",
        f"python print([(f.name, str(f.type)) for f in {option}.fields()])",
        f"python print({some}[{some}.type.fields()[1]]['__0'], {some}['Some'])",
        f"python print({some}[{option}.fields()[0]])",
        'python print(gdb.parse_and_eval("none")["Some"])',
        'python print(gdb.parse_and_eval("vi").type.template_argument(0))',
        'python print(gdb.parse_and_eval("holder")["counts"]["root"].cast('
        'gdb.lookup_type("alloc::collections::btree::node::NodeRef<alloc::collections::btree::'
        'node::marker::Owned, u8, u16, alloc::collections::btree::node::marker::LeafOrInternal>"))["height"])',
    ]
    expected = gdb_outputs(program, commands)
    assert expected[0].startswith("[(None, True, 0), ('Some'")
    assert ours(program, commands, core=core_of_stop(backend, tmp_path)) == expected


def batch_lines(argv: list[str], program: Path, condition: str) -> list[str]:
    """The stop line and `print x` of a batch run with a conditional breakpoint."""
    done = subprocess.run([*argv, "-batch", "-nx", "-ex", f"break rust_printers::takes if {condition}",
                           "-ex", "run", "-ex", "print x", str(program)], capture_output=True,
                          text=True, timeout=120, env=gdb_env(), stdin=subprocess.DEVNULL)  # fmt: skip
    return [line for line in done.stdout.splitlines() if line.startswith(("Breakpoint 1,", "$1 ="))]


@pytest.mark.parametrize("condition", ["x.0 == 5", "x.0 == 6", "n == 3u32 && x.1 == 6"])
def test_rust_condition_parses_as_rust(program: Path, condition: str) -> None:
    """A condition at a Rust location is Rust (tuple fields, suffixed literals), as gdb
    parses it in the location's language; it was parsed as C and refused when set."""
    expected = batch_lines([str(gdb_path())], program, condition)
    got = batch_lines([sys.executable, "-m", "aliceserver"], program, condition)
    assert got == expected
    assert bool(got) == (condition != "x.0 == 6")
