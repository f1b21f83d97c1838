"""`set print finish off` as gdb 13 does it (gdb.base/finish.exp): finish still records
the value in the history ($N, `print $` shows it) but shows it as `<not displayed>`, on
the console and in MI's return-value; `show print finish` in gdb's words. A returned
pointer is shown as `print` shows it, with its `(type *) ` (gdb's value_print), on the
console and in MI's return-value alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import gcc_program
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import parse_record

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = """int
twice (int x)
{
  return 2 * x;
}

int
main (void)
{
  return twice (3) + twice (4) - 14;
}
"""


@pytest.fixture()
def program(tmp_path: Path) -> Path:
    return gcc_program(tmp_path, "fin", SOURCE)


def test_print_finish_off_like_gdb(program: Path) -> None:
    session = ex("show print finish", "set print finish off", "show print finish", "break twice")
    session += ex("run", "finish", "print $", "set print finish on", "continue", "finish")
    args = ["-batch", "-nx", *session, str(program)]
    expected, got = theirs(args, program.parent), ours(args, program.parent)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert "Value returned is $1 = <not displayed>\n$2 = 6\n" in got.stdout
    assert "Value returned is $3 = 8\n" in got.stdout


def _mi_finish(program: Path, *, gdb: bool, function: str = "twice", shown: str = "off") -> list[object]:
    """-exec-finish's *stopped under print finish `shown`: what it tells of the value."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    try:
        mi.prompt()
        mi.ok(f'-interpreter-exec console "set print finish {shown}"')
        mi.ok(f"-break-insert {function}")
        mi.ok("-exec-run")
        mi.stopped()
        _, lines = mi.command("-exec-finish")
        lines += mi.read_until(lambda line: line.startswith("*stopped"))
        results = parse_record(lines[-1]).results
        return [results.get(key) for key in ("reason", "gdb-result-var", "return-value")]
    finally:
        mi.close()


def test_mi_print_finish_off_like_gdb(program: Path) -> None:
    got = _mi_finish(program, gdb=False)
    assert got == _mi_finish(program, gdb=True)
    assert got == ["function-finished", "$1", "<not displayed>"]


POINTERS = """struct item { int weight; };
static struct item spare = { 9 };

struct item *
spare_item (void)
{
  return &spare;
}

const char *
label (void)
{
  return "spare";
}

int
main (void)
{
  return spare_item ()->weight + label ()[0] - 9 - 's';
}
"""


def test_returned_pointer_printed_like_gdb(tmp_path: Path) -> None:
    """It was `Value returned is $1 = 0x... <spare>`: MI's form of a value, not print's."""
    program = gcc_program(tmp_path, "pointers", POINTERS)
    session = ex("break spare_item", "break label", "run", "finish", "continue", "finish")
    args = ["-batch", "-nx", *session, str(program)]
    expected, got = theirs(args, program.parent), ours(args, program.parent)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert "Value returned is $1 = (struct item *) 0x" in got.stdout and " <spare>\n" in got.stdout
    assert 'Value returned is $2 = 0x' in got.stdout and ' "spare"\n' in got.stdout
    mine = _mi_finish(program, gdb=False, function="spare_item", shown="on")
    assert mine == _mi_finish(program, gdb=True, function="spare_item", shown="on")
    assert str(mine[2]).startswith("(struct item *) 0x") and str(mine[2]).endswith(" <spare>")
