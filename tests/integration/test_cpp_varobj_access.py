"""C++ var objects, frame names and breakpoint names field by field against gdb 13's MI:
a class's children are its bases (named after the base type) and its `public`, `private`
and `protected` groups (vtable pointers hidden), with gdb's path expressions; through
pointers, `this`, with pretty printing on; references show the value they refer to; frame
lines show `d=...` for a reference to a class; a C++ function without a linkage name is
`main()` in a breakpoint."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.gdb import gdb_env, gdb_path

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

SOURCE = PROGRAMS_DIR / "cpp_access.cpp"

AT_MAIN = [
    "-var-create - * derived",
    "-var-list-children --all-values var1",
    "-var-list-children --all-values var1.public",
    "-var-list-children --all-values var1.private",
    "-var-list-children --simple-values var1.geo::Base",
    "-var-list-children --all-values var1.geo::Base.public",
    "-var-list-children --all-values var1.geo::Base.protected",
    "-var-list-children --all-values var1.geo::Base.private",
    "-var-list-children --all-values var1.geo::Plain",
    "-var-list-children --all-values var1.geo::Plain.public",
    "-var-list-children --all-values var1.public.inner",
    "-var-list-children --all-values var1.private.2_anonymous",
    "-var-info-path-expression var1.geo::Base.public.id",
    "-var-info-path-expression var1.public.visible",
    "-var-info-path-expression var1.public.inner.public.depth",
    "-var-info-path-expression var1.geo::Base",
    "-var-info-path-expression var1.public",
    "-var-info-expression var1.public",
    "-var-info-expression var1.geo::Base",
    "-var-info-expression var1.public.visible",
    "-var-evaluate-expression var1.public",
    "-var-evaluate-expression var1.geo::Base",
    "-var-evaluate-expression var1.geo::Base.public.id",
    "-var-info-num-children var1",
    "-var-info-num-children var1.private",
    "-var-info-type var1.public",
    "-var-info-type var1.geo::Base",
    "-var-show-attributes var1.public",
    "-var-assign var1.public 1",
    "-var-assign var1.public.visible 99",
    "-var-assign var1.geo::Base.public.id 77",
    "-var-update --all-values *",
    "-var-delete var1.public",
    "-var-list-children var1",
    "-var-create - * pd",
    "-var-list-children --all-values var2",
    "-var-list-children --all-values var2.public",
    "-var-list-children --all-values var2.geo::Base",
    "-var-info-path-expression var2.public.visible",
    "-var-info-path-expression var2.geo::Base",
    "-var-list-children --all-values var2.geo::Base.public",
    "-var-info-path-expression var2.geo::Base.public.id",
    "-var-create - * quiet", "-var-list-children --all-values var3",
    "-var-create - * plain", "-var-list-children --all-values var4",
    "-var-list-children --all-values var4.public",
    "-var-create - * pair", "-var-list-children --all-values var5",
    "-var-list-children --all-values var5.public",
    "-var-create - * stdpair", "-var-list-children --all-values var6",
    "-var-list-children --all-values var6.public",
    "-var-create - * hidden", "-var-list-children --all-values var7",
    "-var-create - * refs", "-var-list-children --all-values var8",
    "-var-list-children --all-values var8.public",
    "-var-create - * refs.ref",
    "-enable-pretty-printing",
    "-var-create - * derived", "-var-list-children --all-values var10",
    "-var-list-children --all-values var10.public",
    "-stack-list-locals --simple-values",
    '-interpreter-exec console "whatis hidden"',
    '-interpreter-exec console "whatis stdpair"',
    "-exec-continue",  # to Derived::total, called by area(geo::Derived &)
    "-stack-list-frames",
    "-stack-info-frame",
    '-interpreter-exec console "bt"',
    "-var-create - * this",
    "-var-list-children --all-values var11",
    "-var-info-path-expression var11.geo::Plain",
    "-var-create - * *this",
    "-var-list-children --all-values var12",
    "-var-list-children --all-values var12.public",
    "-var-info-path-expression var12.public.visible",
    "-stack-select-frame 1",
    "-var-create - * d",
    "-var-list-children --all-values var13",
    "-var-list-children --all-values var13.public",
    "-var-info-path-expression var13.public.visible",
    "-break-list",
]  # fmt: skip

_ADDRESS = re.compile(r"0x[0-9a-f]{5,}")
_CORE = re.compile(r',core="\d+"')


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_access")


def mi_replies(argv: list[str], program: Path, script: list[str]) -> list[str]:
    main, total = marker_line(SOURCE, "main"), marker_line(SOURCE, "total")
    lines = [f"-break-insert cpp_access.cpp:{main}", f"-break-insert cpp_access.cpp:{total}",
             "-break-insert plain_c", "-exec-run", *script, "-gdb-exit"]  # fmt: skip
    done = subprocess.run(argv + [str(program)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=120, env=gdb_env())  # fmt: skip
    out = [line for line in done.stdout.splitlines()
           if line.startswith(("^done", "^error", "*stopped", '~"Breakpoint', '~"#'))]  # fmt: skip
    # Stack addresses differ by the environment's size; the core the program ran on.
    return [_CORE.sub("", _ADDRESS.sub("0xADDR", line)) for line in out]


def test_cpp_var_objects_and_frames_match_gdb(program: Path) -> None:
    gdb = mi_replies([str(gdb_path()), "-nx", "-q", "-i=mi"], program, AT_MAIN)
    ours = mi_replies([sys.executable, "-m", "aliceserver", "-nx", "-q", "-i=mi"], program, AT_MAIN)
    assert any('exp="public"' in line for line in gdb), gdb  # the oracle ran
    at = AT_MAIN.index("-exec-continue") + 1
    commands = ["break main", "break total", "break plain_c", "stop line", "*stopped", *AT_MAIN[:at],
                "stop line", "*stopped", *AT_MAIN[at:]]  # fmt: skip
    assert len(ours) == len(gdb), "\n".join(ours)
    for command, theirs, mine in zip(commands, gdb, ours, strict=False):
        assert (command, mine) == (command, theirs)
