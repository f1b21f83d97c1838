"""What the real-client tests (tests/clients: Emacs gdb-mi, Vim termdebug) share.

A `Workspace` is one test's private directory: the C program built there at test time (so
the client opens and reads nothing outside it), a `bin/dbg` wrapper script that the client
is configured to run as its "gdb" (real gdb, or `python -m aliceserver`), and a HOME of its
own so no user configuration (~/.gdbinit, ~/.emacs.d, ~/.vimrc) leaks into the test.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.build import PROGRAMS_DIR, marker_line
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import List, Tuple

ROOT = Path(__file__).resolve().parent.parent.parent
DEBUGGERS = ("gdb", "aliceserver")
PROGRAM = "client_prog"
CPP_PROGRAM = "client_cpp"  # std containers shown through libstdc++'s printers
# What client_prog.c prints, and the lines the scenario stops at (by their @bp: markers).
PROGRAM_OUTPUT = "client total=14"


def line(name: str) -> int:
    return marker_line(PROGRAMS_DIR / f"{PROGRAM}.c", name)


@dataclass(frozen=True)
class Workspace:
    root: Path
    work: Path  # the program, its source; the client's working directory
    home: Path
    wrapper: Path  # bin/dbg: what the client runs as gdb
    debugger: str  # "gdb" or "aliceserver"
    name: str = PROGRAM  # the program, built from tests/programs/NAME + suffix
    suffix: str = ".c"

    @property
    def program(self) -> Path:
        return self.work / self.name

    @property
    def source(self) -> Path:
        return self.work / f"{self.name}{self.suffix}"

    @property
    def server_log(self) -> Path:
        return self.root / "server.log"

    def env(self, term: str = "xterm-256color") -> dict[str, str]:
        """A small environment: PATH, a private HOME, a UTF-8 locale."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TERM": term,
            "SHELL": "/bin/sh",
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
        }
        # The clients' temporary files (Emacs's, Vim's) stay in the workspace.
        env["TMPDIR"] = str(self.root / "tmp")
        return env

    def server_log_tail(self, lines: int = 60) -> str:
        if not self.server_log.exists():
            return "(no server log)"
        text = self.server_log.read_text(errors="replace").splitlines()
        return "server log (tail):\n" + "\n".join(text[-lines:])


def make_workspace(
    root: Path, debugger: str, compiler: str, name: str = PROGRAM, suffix: str = ".c"
) -> Workspace:
    """Build NAME (client_prog.c; client_cpp.cpp with g++) in `root`/work and write the
    wrapper for `debugger`."""
    if debugger not in DEBUGGERS:
        raise ValueError(f"unknown debugger {debugger!r}")
    work, home, bin_dir = root / "work", root / "home", root / "bin"
    for folder in (work, home, bin_dir, root / "tmp"):
        folder.mkdir(parents=True, exist_ok=True)
    source = work / f"{name}{suffix}"
    shutil.copyfile(PROGRAMS_DIR / source.name, source)
    subprocess.run(
        [compiler, "-g", "-O0", "-fno-omit-frame-pointer", "-o", name, source.name],
        cwd=work, check=True, capture_output=True, timeout=120,
    )
    wrapper = bin_dir / "dbg"
    if debugger == "gdb":
        gdb = shutil.which("gdb") or "gdb"
        body = f'exec {shlex.quote(gdb)} "$@"\n'
    else:
        pythonpath = shlex.quote(str(ROOT))
        log = shlex.quote(str(root / "server.log"))
        body = (
            f'PYTHONPATH={pythonpath}${{PYTHONPATH:+:$PYTHONPATH}}; export PYTHONPATH\n'
            f"exec {shlex.quote(sys.executable)} -m aliceserver"
            f' --log-file {log} --log-level DEBUG "$@"\n'
        )
    wrapper.write_text("#!/bin/sh\n" + body)
    wrapper.chmod(0o755)
    return Workspace(root=root, work=work, home=home, wrapper=wrapper, debugger=debugger, name=name, suffix=suffix)


def gdb_mi_results(
    space: Workspace, location: str, commands: list[str], settings: Sequence[str] = ()
) -> list[Any]:
    """Real gdb's MI results (tuples as dicts) for `commands` at `location`, after the
    client's `settings` (`-gdb-set print pretty on`): what the client is to show,
    whichever debugger it runs."""
    gdb = MiClient(["-nx", "-i=mi", str(space.program)], cwd=space.work, gdb=True, env=space.env())
    try:
        gdb.ok("-enable-pretty-printing")
        for setting in settings:
            gdb.ok(setting)
        gdb.ok(f"-break-insert {location}")
        gdb.ok("-exec-run")
        gdb.stopped()
        return [plain_mi(gdb.ok(command).results) for command in commands]
    finally:
        gdb.close()


def plain_mi(value: Any) -> Any:
    """An MI value as gdb-mi.el reads it: a tuple as a dict, a list without its keys."""
    if isinstance(value, List):
        return [plain_mi(item) for item in value.values]
    if isinstance(value, Tuple):
        return {key: plain_mi(item) for key, item in value.items}
    return value
