"""A breakpoint in a library is pending again once the library is unloaded, as in gdb 13:
dlopen_main.c loads lib_plugin.c, calls into it and dlcloses it; the MI client hears the
breakpoint resolve (=breakpoint-modified with an address), stop, and go back to <PENDING>."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]
_NOISE = re.compile(r',core="\d+"|0x0000[0-9a-f]+|/[^"]*/(?=lib_plugin\.c")|,frame=\{.*')


def _records(prog: Path, library: Path, *, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", "--args", str(prog), str(library)], cwd=prog.parent, gdb=gdb)
    try:
        mi.prompt()
        mark = len(mi.lines)
        for command in ("-break-insert -f plugin_work", "-exec-run", "-exec-continue"):
            mi.ok(command)
            if command.startswith("-exec-"):
                mi.stopped()
        return [_NOISE.sub("", re.sub(r"^\d+\^", "^", line)) for line in mi.lines[mark:]
                if line.lstrip("0123456789").startswith(("^", "=breakpoint", "*stopped"))]
    finally:
        mi.close()


def test_breakpoint_in_unloaded_library_is_pending_again(builder: Builder) -> None:
    library = builder.build("lib_plugin", extra=["-shared", "-fPIC"])
    prog = builder.build("dlopen_main", extra=["-ldl"])
    got = _records(prog, library, gdb=False)
    assert got == _records(prog, library, gdb=True)
    assert got[-2].startswith('=breakpoint-modified,bkpt={number="1",type="breakpoint",disp="keep",enabled="y",'
                              'addr="<PENDING>",pending="plugin_work",thread-groups=["i1"],times="1"')
