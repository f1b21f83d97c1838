"""Run an interactive terminal program (Emacs, Vim) inside a private tmux server.

Every `Tmux` has its own server (`tmux -L NAME`), so tests never touch a user's tmux and
can run side by side. `close()` kills the server and then every process that was started
under it (the client, the debugger it runs, the debuggee), so a test leaves nothing behind
even when the client hangs. Waits poll with generous limits; nothing here asserts timings.
"""

from __future__ import annotations

import itertools
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

_serial = itertools.count(1)


def find_tmux() -> str | None:
    return shutil.which("tmux")


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process visible in /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1:
            parents[int(entry)] = int(fields[1])
    return parents


def descendants(root: int) -> list[int]:
    """Every live process below `root` (children, grandchildren...), parents first."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    found: list[int] = []
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop(0)
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state[state.rfind(")") + 2 :][:1] != "Z"


def wait_for(
    probe: Callable[[], T | None], timeout: float, what: str, details: Callable[[], str] | None = None
) -> T:
    """Poll `probe` until it returns something other than None (or False); fail clearly."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None and value is not False:
            return value
        if time.monotonic() >= deadline:
            extra = f"\n{details()}" if details is not None else ""
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{extra}")
        time.sleep(0.1)


class Tmux:
    """One private tmux server running one session with one window."""

    def __init__(self, name: str, tmux: str = "tmux") -> None:
        self.name = name
        self.tmux = tmux
        self.server_pid: int | None = None
        self._watched: set[int] = set()

    @classmethod
    def start(
        cls,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        width: int = 160,
        height: int = 50,
        prefix: str = "alice",
    ) -> Tmux:
        """Start `argv` in a new detached session of a new private server."""
        tmux = find_tmux()
        if tmux is None:
            raise RuntimeError("tmux is not installed")
        server = cls(f"{prefix}-{os.getpid()}-{next(_serial)}", tmux)
        config = cwd / f".{server.name}.conf"
        # Keep the pane (and its last screen) when the program ends, for the failure report.
        config.write_text("set -g remain-on-exit on\nset -g history-limit 5000\n")
        environment = {k: v for k, v in env.items() if not k.startswith("TMUX")}
        subprocess.run(
            [
                tmux, "-L", server.name, "-f", str(config), "new-session", "-d", "-s", "main",
                "-x", str(width), "-y", str(height), "-c", str(cwd), shlex.join(argv),
            ],
            check=True, env=environment, cwd=cwd, capture_output=True, timeout=30,
        )
        try:
            server.server_pid = int(server.command("display-message", "-p", "#{pid}").strip())
        except (RuntimeError, ValueError):
            server.command("kill-server", check=False)
            raise
        server.remember()
        return server

    def command(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            [self.tmux, "-L", self.name, *args], capture_output=True, text=True, timeout=30
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def remember(self) -> None:
        """Note every process now under the server (killed by close() if still there)."""
        if self.server_pid is not None:
            self._watched.update(descendants(self.server_pid))

    def send_keys(self, *keys: str) -> None:
        """tmux key names (`C-x`, `Enter`, `Escape`) or text, as `send-keys` takes them."""
        self.command("send-keys", "-t", "main", *keys)

    def type_text(self, text: str) -> None:
        """Type `text` literally (no key-name lookup)."""
        self.command("send-keys", "-t", "main", "-l", text)

    def screen(self) -> str:
        """The visible screen of the pane, as text."""
        return self.command("capture-pane", "-p", "-t", "main", check=False)

    def pane_dead(self) -> bool:
        return self.command("display-message", "-p", "-t", "main", "#{pane_dead}", check=False).strip() == "1"

    def close(self, grace: float = 10.0) -> list[int]:
        """Kill the server, then whatever it started; the pids that needed a SIGKILL."""
        if self.server_pid is None:
            return []
        self.remember()
        watched = {self.server_pid, *self._watched}
        self.command("kill-server", check=False)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(_alive(pid) for pid in watched):
            time.sleep(0.05)
        killed: list[int] = []
        # Survivors (and anything they started since) get SIGKILL.
        for _ in range(3):
            survivors = [pid for pid in watched if _alive(pid)]
            for pid in list(survivors):
                survivors.extend(descendants(pid))
            if not survivors:
                break
            for pid in survivors:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)
        self.server_pid = None
        return sorted(set(killed))
