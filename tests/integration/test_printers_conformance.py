"""Library values through the same pretty printers as gdb 13 (MI) and lldb-vscode-16 (DAP):
conformance/printers_diff.py over every C++ and Rust standard type of its programs, with no
difference left unexplained; and the MI var-object differences it found, one by one."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.printers_diff import CPP, build, missing_tools, print_report, program_env, run
from tests.support.build import Builder
from tests.support.gdb import gdb_path

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
]


def test_no_unexplained_difference(builder: Builder, capsys: pytest.CaptureFixture[str]) -> None:
    report = run(builder.cache_dir)
    if not report.outcomes:
        pytest.skip("; ".join(report.skipped))
    print_report(report, verbose=False)
    table = capsys.readouterr().out
    assert re.search(r"^cpp_printers +mi ", table, re.M) or "c++" in " ".join(report.skipped), table
    assert sum(o.checks for o in report.outcomes) > 1000, table  # the scenario really ran
    assert report.unexplained() == [], table
    if not report.skipped:  # an entry that explains nothing any more goes from its table
        assert [e.reason for e in report.stale()] == [], table


def mi_replies(argv: list[str], binary: Path, script: list[str]) -> list[str]:
    lines = [f"-break-insert {CPP.location}", "-exec-run", *script, "-gdb-exit"]
    done = subprocess.run([*argv, str(binary)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=120, env=program_env(binary), cwd=binary.parent)
    return [line for line in done.stdout.splitlines() if line.startswith(("^done", "^error"))][1:]


def test_typedef_array_and_null_printer_pointer_var_objects(builder: Builder) -> None:
    """An array behind a typedef (std::array's `_M_elems`) shows `[4]`, as any array; a
    printer's child that is a null pointer (an empty shared_ptr's `get()`) has one child,
    as gdb counts a pointer's children by its type, whatever it holds."""
    if missing_tools(CPP):
        pytest.skip(f"{missing_tools(CPP)} not found")
    binary = build(CPP, builder.cache_dir)
    script = ["-enable-pretty-printing",
              "-var-create - * arr", "-var-list-children var1",
              "-var-list-children --all-values var1.public",
              "-var-create - * arr._M_elems",
              "-var-create - * empty_sp", "-var-list-children --all-values var3",
              "-var-list-children --all-values var3.get()"]
    expected = mi_replies([str(gdb_path()), "-nx", "-q", "-i=mi"], binary, script)
    assert 'value="[4]"' in expected[3] and 'numchild="1"' in expected[-1]
    got = mi_replies([sys.executable, "-m", "aliceserver", "-nx", "-q", "-i=mi"], binary, script)
    assert list(zip(script, got, strict=True)) == list(zip(script, expected, strict=True))
