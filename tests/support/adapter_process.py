"""The adapter processes the DAP tests talk to: how to start ours (`alice_argv`), where the
reference lldb-vscode is, a free TCP port, and `AdapterProcess`, an adapter in its own
session killed and reaped together with everything it started (found through /proc)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO


def alice_argv(*extra: str) -> list[str]:
    """How to start our adapter over stdio with the interpreter running the tests."""
    return [sys.executable, "-m", "aliceserver", "--adapter", "dap", *extra]


def find_lldb_vscode() -> str | None:
    """The reference adapter: $ALICESERVER_LLDB_VSCODE, else lldb-vscode-16 (Debian's lldb-16)."""
    override = os.environ.get("ALICESERVER_LLDB_VSCODE")
    if override:
        return shutil.which(override)
    for name in ("lldb-vscode-16", "lldb-vscode"):
        found = shutil.which(name)
        if found:
            return found
    return None


def free_port() -> int:
    """A loopback TCP port free at the time of the call (the adapter binds it soon after)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _processes() -> list[tuple[int, int, int, str]]:
    """(pid, ppid, session id, state) of every process, from /proc."""
    found: list[tuple[int, int, int, str]] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        found.append((int(entry), int(fields[1]), int(fields[3]), fields[0]))
    return found


def _descendants(root: int) -> list[int]:
    """Live pids below `root` in the process tree, or in its session (the adapter is a
    session leader): orphans reparented away still carry its session id."""
    processes = [p for p in _processes() if p[3] != "Z"]
    children: dict[int, list[int]] = {}
    for pid, ppid, _, _ in processes:
        children.setdefault(ppid, []).append(pid)
    found = {pid for pid, _, sid, _ in processes if sid == root and pid != root}
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return sorted(found)


@dataclass
class AdapterProcess:
    """An adapter subprocess in its own session (process group), killed with all it started."""

    popen: subprocess.Popen[bytes]
    stderr_path: Path | None = None

    @classmethod
    def start(
        cls,
        argv: Sequence[str],
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        stdio: bool = True,
        stderr: Path | None = None,
    ) -> AdapterProcess:
        err: IO[bytes] | int = subprocess.DEVNULL
        if stderr is not None:
            err = stderr.open("wb")
        try:
            popen = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE if stdio else subprocess.DEVNULL,
                stdout=subprocess.PIPE if stdio else subprocess.DEVNULL,
                stderr=err,
                cwd=cwd,
                env=dict(env) if env is not None else None,
                start_new_session=True,  # one group to kill: the adapter, lldb-server, the debuggee
                bufsize=0,
            )
        finally:
            if not isinstance(err, int):
                err.close()
        return cls(popen, stderr)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def stderr_text(self, limit: int = 4000) -> str:
        if self.stderr_path is None or not self.stderr_path.exists():
            return ""
        return self.stderr_path.read_text(errors="replace")[-limit:]

    def stop(self, grace: float = 3.0) -> int | None:
        """Wait up to `grace` s for a voluntary exit, then kill the adapter and everything it
        started (also what outlived it); reap it. Its exit code (None: it would not die)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=grace)
        return self.kill()

    def kill(self) -> int | None:
        # Collect the tree first: once the adapter dies its children are reparented away.
        for sig in (signal.SIGTERM, signal.SIGKILL):
            tree = _descendants(self.popen.pid)
            if self.popen.poll() is not None and not tree:
                break
            if self.popen.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    self.popen.send_signal(sig)
            for pid in tree:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline:
                if self.popen.poll() is not None and not any(_alive(p) for p in tree):
                    break
                time.sleep(0.02)
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.popen.wait(timeout=5.0)
        return None


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] != "Z"
