"""gdb's memory commands against gdb 13 on the same program: `find` (sizes, counts, strings,
several values, its errors, $numfound and $_), `dump`/`append` (raw memory and values,
srec, ihex and verilog files byte for byte, gdb's errors and subcommand lists) and
`restore` (raw files with offset, start and end, srec files), before and after `run`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, normalized, ours, theirs

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = r"""
int buf[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
char text[] = "hello world hello";
double fl = 3.5;
int main(void) { return buf[0] + text[0] + (int) fl; }
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    (tmp_path / "mem.c").write_text(SOURCE)
    subprocess.run([gcc, "-g", "-O0", "-o", str(tmp_path / "mem"), str(tmp_path / "mem.c")], check=True)
    return tmp_path / "mem"


def test_find_like_gdb(program: Path, tmp_path: Path) -> None:
    got = assert_like_gdb([*ex(
        "find buf, +sizeof(buf), 5", "break main", "run",
        "find &buf[0], +sizeof(buf), 5", "p $_", "p $numfound", "find /w &buf[0], &buf[15], 99", "p $_",
        "p $numfound", 'find text, +sizeof(text), "hello"', "find /b text, +sizeof(text), 0x68, 0x65",
        'find /2 text, +sizeof(text), "hello"', "find text, +sizeof(text), 'l'", "find /1b text, +18, 'l'",
        "find /h buf, +64, 3", "find /g buf, +64, 0x0000000400000003", "find &fl, +8, 3.5", "find &fl, +8, fl",
        "find /w buf, +64, 1, 2", "find buf, +64, 1, 2", "find /bw buf, +64, 1", "find buf, +0, 1",
        "find buf, +64", "find buf", "find", "find /z buf, +4, 1", "find buf, buf, 1", "find buf+8, buf, 1",
        "find buf, +-1, 1", "find buf, +, 1", "find 0, +100, 1", "find buf, +8, 1,,2"), str(program)],
        tmp_path)  # fmt: skip
    assert "5 patterns found." in got.stdout and "Pattern not found." in got.stdout


DUMPS = [
    "dump memory m.bin &buf[0] &buf[4]", "dump binary memory m2.bin buf buf+2", "dump value v.bin buf",
    "dump binary value v2.bin fl", "append memory m.bin &buf[4] &buf[5]", "append binary value v2.bin 7",
    "dump value v3.bin 1+2", "dump value v4.bin text", "dump mem m3.bin buf buf + 4",
    "dump srec memory s.srec buf buf+40", "dump srec value s2.srec 5", "dump verilog memory v.v buf buf+40",
    "dump verilog value v2.v text", "dump ihex memory i.hex buf buf+4", "dump ihex value i2.hex 5",
    "dump memory", "dump memory x", "dump memory x buf", "dump", "dump foo", "dump value", "dump value x",
    "dump memory nonexist/x buf buf+4", "dump memory e.bin buf+4 buf", "dump memory z.bin 0 4",
    "append ihex memory i.hex buf buf+1", "append", "dump binary", "dump srec foo", "append binary",
]
RESTORES = [
    "restore m.bin binary &buf[8]", "restore m.bin binary &buf[8] 4 8", "p buf", "restore m.bin binary 0",
    "restore", "restore m.bin", "restore nonexist binary", "restore nonexist", "restore m.bin binary buf 30",
    "restore m.bin binary buf 8 4", "restore m.bin binary buf 4 8 junk",
    "restore s.srec 0x555500000000 0x55558050 0x55558060", "p buf", "restore s.srec", "restore s.srec 0 0 4",
]


def test_dump_append_and_restore_like_gdb(program: Path, tmp_path: Path) -> None:
    runs = {}
    for who, run in (("gdb", theirs), ("ours", ours)):
        where = tmp_path / who
        where.mkdir()
        done = run(["-batch", "-nx", *ex("dump memory pre.bin buf buf+2", "restore pre.bin binary buf", "break main",
                                         "run", *DUMPS, *RESTORES), str(program)], where)  # fmt: skip
        files = {path.name: path.read_bytes() for path in sorted(where.iterdir())}
        runs[who] = (normalized(done.stdout), normalized(done.stderr), files)
    assert runs["ours"] == runs["gdb"]
    assert set(runs["ours"][2]) >= {"m.bin", "s.srec", "v.v", "i.hex", "v4.bin"}
