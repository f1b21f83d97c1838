"""A stub's library list can place a library by its allocated sections (`<section
address>` each) instead of by its first segment: gdb's solib-target adds each address to
its section's link-time address (solib_target_relocate_section_addresses), and shows the
library's range from the lowest address to the end of the largest section. The proxy
(rsp_solib_target.py, sections mode) lists each library so, every section at the load
bias; ours against gdb 13 (`set osabi none`: solib-target) over the same proxy."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from tests.integration.test_remote_solib_target import _normalized, linked  # noqa: F401
from tests.support.batch import ex, needs_gdb, ours, theirs
from tests.support.gdbserver import gdbserver
from tests.support.rsp_solib_target import solib_target_proxy

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_libraries_placed_by_sections_like_gdb(linked: Path, tmp_path: Path) -> None:  # noqa: F811
    commands = ["target remote {target}", "break solib_step", "continue", "bt", "info sharedlibrary",
                "p solib_step", "kill"]  # fmt: skip
    said = []
    for run, options in ((theirs, ["-iex", "set osabi none"]), (ours, [])):
        with gdbserver(linked) as server, solib_target_proxy(server.address, linked, sections=True) as proxy:
            lines = [c.replace("{target}", proxy.address) for c in commands]
            done = run(["-batch", "-nx", *options, *ex(*lines), str(linked)], tmp_path)
            said.append(_normalized(done.stdout) + "\n--stderr--\n" + _normalized(done.stderr))
    gdb, alice = said
    assert alice == gdb, "\n".join(difflib.unified_diff(gdb.splitlines(), alice.splitlines(), lineterm=""))
    assert "solib_step (x=1) at " in alice and "main () at " in alice
    assert re.search(r"0x[0-9a-f]+ +0x[0-9a-f]+ +Yes +target:ROOT/lib_solib", alice), alice
