"""Run the mocha tests in tests/clients (VS Code's DebugClient driving our DAP adapter).

Skipped only when node is absent. When node is there, the npm packages must be too
(scripts/setup.sh installs them with `npm ci`), and any mocha failure fails this test with
mocha's report. Processes the tests leave behind (adapters, debuggees) fail it as well.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

CLIENTS = Path(__file__).resolve().parent
MOCHA = CLIENTS / "node_modules" / "mocha" / "bin" / "mocha.js"
TESTSUPPORT = CLIENTS / "node_modules" / "@vscode" / "debugadapter-testsupport"


def _session_members(sid: int) -> list[tuple[int, str]]:
    """(pid, name) of live processes in session `sid` (mocha's, and so its children's)."""
    found: list[tuple[int, str]] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append((int(entry), name))
    return found


@pytest.mark.timeout(900)
def test_debugclient_mocha_suite() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the DebugClient tests need Node.js (scripts/setup.sh)")
    if not MOCHA.is_file() or not TESTSUPPORT.is_dir():
        pytest.fail(
            "node is installed but tests/clients/node_modules is missing: run scripts/setup.sh "
            "(or `npm ci` in tests/clients)",
            pytrace=False,
        )
    env = dict(os.environ, ALICESERVER_PYTHON=sys.executable, NO_COLOR="1", FORCE_COLOR="0")
    # A session of its own: whatever mocha starts can be found (and killed) afterwards.
    process = subprocess.Popen(
        [node, str(MOCHA), "--reporter", "spec"],
        cwd=CLIENTS,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=840)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        pytest.fail(f"mocha timed out:\n{output.decode(errors='replace')[-6000:]}", pytrace=False)
    report = output.decode(errors="replace")
    leftovers = _session_members(process.pid)
    for pid, _ in leftovers:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if process.returncode != 0:
        pytest.fail(f"mocha failed (exit {process.returncode}):\n{report[-8000:]}", pytrace=False)
    if leftovers:
        pytest.fail(f"the client tests left processes behind: {leftovers}", pytrace=False)
    assert "passing" in report, report[-2000:]
