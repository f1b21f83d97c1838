"""A SIGTERM to the server alone ends it at once, and the children it works ahead in with
it, though the session waits for a child that is stuck (programsearch.py waits for the
search child's answer 30 s before the session searches itself).

Real build: tests/support/inlined_twice.py's program, whose `break twice` before the index
is built starts a search child (forced on this small program by the threshold's
environment variable). The child hangs (a sitecustomize of the test's, before it could ask
for the parent-death signal), and the server's patience is made 600 s by the same file:
the server's end does not come from that wait running out.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.ahead_children import children_running
from tests.support.inlined_twice import build_inlined_twice
from tests.support.mi_client import ROOT
from tests.support.procs import read_status

pytestmark = pytest.mark.timeout(120)

_CHILD = "aliceserver.debuggers.symbols.dwarf.searchchild"
_HOOK = f"""
import sys, time
if {_CHILD!r} in sys.orig_argv:
    time.sleep(600)  # stuck
elif "aliceserver" in sys.orig_argv:
    from aliceserver.debuggers.symbols.dwarf import programsearch
    programsearch._PATIENCE = 600.0
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sigterm-children")
    build_inlined_twice(root)
    (root / "custom").mkdir()
    (root / "custom" / "sitecustomize.py").write_text(_HOOK)
    return root / "prog"


def test_sigterm_while_a_child_is_stuck_ends_the_server_and_the_child(
    program: Path, tmp_path: Path
) -> None:
    paths = [str(program.parent / "custom"), str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in paths if p),
        ALICESERVER_SEARCH_CHILD_LEAST="1",
    )
    argv = [sys.executable, "-m", "aliceserver", "-i=mi", "-q", "-nx", "--cache-dir", str(tmp_path / "cache"),
            str(program)]  # fmt: skip
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, cwd=program.parent, env=env)  # fmt: skip
    stuck: list[int] = []
    try:
        assert server.stdin is not None
        server.stdin.write(b"-break-insert twice\n")
        server.stdin.flush()
        end = time.monotonic() + 60
        while not stuck:  # (the session waits for it now)
            assert time.monotonic() < end and server.poll() is None
            time.sleep(0.05)
            stuck = children_running(_CHILD, str(program))
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 143  # (a guard: the patience is 600 s)
        assert all(read_status(pid) is None for pid in stuck), stuck  # killed and reaped
    finally:
        for pid in stuck:
            if read_status(pid) is not None:
                os.kill(pid, signal.SIGKILL)
        if server.poll() is None:
            server.kill()
            server.wait()
