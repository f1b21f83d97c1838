"""A Linux stub that offers qXfer:libraries-svr4:read is asked for its list at each event
of the loader, as gdb's svr4_current_sos_via_xfer_libraries does; only where it gives none
does gdb walk the loader's link map in memory itself (never qXfer:libraries:read on an SVR4
target). The proxy (rsp_solib_target.py, svr4 mode) keeps gdbserver's svr4 list, offers
qXfer:libraries:read beside it and fails reads of the program's DT_DEBUG entry and of the
loader's _r_debug: gdb 13 lists the libraries from the stub's list and stops in one."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from tests.integration.test_remote_solib_target import _normalized, linked  # noqa: F401
from tests.support.batch import ex, needs_gdb, ours, theirs
from tests.support.gdbserver import gdbserver
from tests.support.rsp_solib_target import solib_target_proxy

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_libraries_from_the_stubs_svr4_list_like_gdb(linked: Path, tmp_path: Path) -> None:  # noqa: F811
    commands = ["set sysroot /", "target remote {target}", "info sharedlibrary", "break solib_step", "continue",
                "bt", "info sharedlibrary", "kill"]  # fmt: skip
    said = []
    for run in (theirs, ours):
        with gdbserver(linked) as server, solib_target_proxy(server.address, linked, svr4=True) as proxy:
            lines = [c.replace("{target}", proxy.address) for c in commands]
            done = run(["-batch", "-nx", *ex(*lines), str(linked)], tmp_path)
            said.append(_normalized(done.stdout) + "\n--stderr--\n" + _normalized(done.stderr))
    gdb, alice = said
    assert alice == gdb, "\n".join(difflib.unified_diff(gdb.splitlines(), alice.splitlines(), lineterm=""))
    assert "solib_step (x=1) at " in alice and "ROOT/lib_solib\n" in alice
