"""`break LINE` binds once in each block of a function the line's code is in, as gdb's
create_sals_line_offset (one location per block_for_pc): a line holding two braced
blocks that each declare a variable has two locations, and so has a Rust `println!`
line (its arguments' temporaries are in a block of their own). A lexical block that
declares nothing is no block of its own (gdb's read_lexical_block_scope). Ours bound
such a line once per function (inlined copies apart). A line given without its file
is kept under the file's full name (original-location, the multi-location message)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, normalized, ours, output_like_gdb, theirs
from tests.support.build_more import find_rustc
from tests.support.gdb import gdb_path
from tests.support.mi_client import MiClient

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
]

BLOCKS = """#include <stdio.h>

static int f (int x) { return x + 1; }

int
main (void)
{
  int total = 0;
  { int a = f (1); total += a; } { int b = f (2); total += b; }
  for (int i = 0; i < 2; i++) { total += i; }
  printf ("%d\\n", total);
  return 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built from its relative name, as `gcc -g blocks.c` in its directory: the debug
    info names `blocks.c`, the breakpoint's location the full name."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    directory = tmp_path_factory.mktemp("blocks")
    (directory / "blocks.c").write_text(BLOCKS)
    subprocess.run([gcc, "-g", "-O0", "-o", "blocks", "blocks.c"], cwd=directory, check=True, timeout=120)
    return directory / "blocks"


def test_a_line_binds_in_each_block_like_gdb(program: Path) -> None:
    shown = output_like_gdb(program, ["break 9", "break 10", "info breakpoints", "run", "print total",
                                      "continue", "print total", "continue"])  # fmt: skip
    assert "Breakpoint 1 at 0x" in shown and f": {program.parent}/blocks.c:9. (2 locations)\n" in shown
    assert "Breakpoint 2 at 0x" in shown and ": file blocks.c, line 10.\n" in shown
    assert "\nBreakpoint 1.1, main () at blocks.c:9\n" in shown and "\nBreakpoint 1.2, main () at blocks.c:9\n" in shown
    assert "$1 = 0\n" in shown and "$2 = 2\n" in shown


def _original_locations(program: Path, *, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    try:
        mi.prompt()
        found = []
        for location in ("9", "blocks.c:9", "f"):
            bkpt = mi.ok(f"-break-insert {location}").results["bkpt"]
            found.append(str(bkpt["original-location"]))  # type: ignore[index]
        return found
    finally:
        mi.close()


def test_original_location_of_a_line_like_gdb(program: Path) -> None:
    ours = _original_locations(program, gdb=False)
    assert ours == _original_locations(program, gdb=True)
    assert ours == [f"{program.parent}/blocks.c:9", "blocks.c:9", "f"]


RUST = """fn twice(n: i32) -> i32 {
    n * 2
}

fn main() {
    let d = twice(3);
    let name = String::from("x");
    println!("{} {}", d, name);
}
"""


@pytest.mark.skipif(find_rustc() is None, reason="rustc not installed")
def test_a_rust_println_line_binds_twice_like_gdb(tmp_path: Path) -> None:
    source = tmp_path / "lines.rs"
    source.write_text(RUST)
    program = tmp_path / "lines"
    subprocess.run([str(find_rustc()), "-g", "-o", str(program), str(source)], check=True, cwd=tmp_path,
                   capture_output=True, timeout=120)  # fmt: skip
    # (stdout alone: gdb -nx warns on stderr that it has no Rust printers to load)
    args = ["-batch", "-nx", *ex("break lines.rs:8", "info breakpoints"), str(program)]
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert ": lines.rs:8. (2 locations)\n" in got.stdout and "\n1.2 " in got.stdout
