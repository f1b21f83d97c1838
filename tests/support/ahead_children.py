"""The child processes a session starts to work ahead (aliceserver/aheadchild.py), as the
tests see them: made to fail or hang, and found still running."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.procs import all_pids

# Loaded by every interpreter with the directory first on PYTHONPATH (the server's too:
# it does nothing there): makes the child running MODULE fail, or hang until killed, as
# the environment variable says ("fail", "hang").
_SITECUSTOMIZE = """
import os, sys, time
if {module!r} in sys.orig_argv:
    if os.environ.get({variable!r}) == "fail":
        os._exit(1)
    if os.environ.get({variable!r}) == "hang":
        time.sleep(600)
"""


def fault_hooks(directory: Path, module: str, variable: str) -> Path:
    """`directory`, made to hold a sitecustomize.py making the child running `module`
    fail or hang as `variable` says: put it first on the session's PYTHONPATH."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "sitecustomize.py").write_text(
        _SITECUSTOMIZE.format(module=module, variable=variable)
    )
    return directory


def children_running(module: str, argument: str) -> list[int]:
    """Children (of anyone) running `module` with `argument` among their arguments."""
    found = []
    for pid in all_pids():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if module.encode() in argv and argument.encode() in argv:
            found.append(pid)
    return found


INDEX_CHILD = "aliceserver.debuggers.symbols.dwarf.indexchild"  # (the module its argv names)
# The load average the sessions see, as AHEAD_LOAD_TEST says (of one length each: the
# program's environment, and so its stack addresses, stay the same)
IDLE, BUSY = "0.00", "9.00"
_LOAD_HOOK = """
if os.environ.get("AHEAD_LOAD_TEST"):
    _load = float(os.environ["AHEAD_LOAD_TEST"])
    os.getloadavg = lambda: (_load, _load, _load)
    import aliceserver.programahead as _ahead  # its check: the tasks runnable now, ours too
    _ahead.runnable_tasks = lambda: int(_load) + 1
"""
_LIBRARY = """
int scaled(int v, int k)
{
    int r = v * k;
    return r + 1;
}
"""


def program_with_library(root: Path, main_source: str, variable: str) -> Path:
    """`root`/prog, built with DWARF from `main_source` and linked with libahead.so (its
    `scaled`, found through the run path), and `root`/custom: the fault hooks for the index
    child (`variable`) and the load hook, to put first on the session's PYTHONPATH."""
    (root / "ahead.c").write_text(_LIBRARY)
    (root / "main.c").write_text(main_source)
    subprocess.run(["gcc", "-g", "-O0", "-shared", "-fPIC", "ahead.c", "-o", "libahead.so"],
                   cwd=root, check=True)  # fmt: skip
    subprocess.run(["gcc", "-g", "-O0", "main.c", "-L.", "-lahead", "-Wl,-rpath,$ORIGIN", "-o", "prog"],
                   cwd=root, check=True)  # fmt: skip
    hooks = fault_hooks(root / "custom", INDEX_CHILD, variable)
    with (hooks / "sitecustomize.py").open("a") as sitecustomize:
        sitecustomize.write(_LOAD_HOOK)
    return root / "prog"


def index_children(cache: Path) -> list[int]:
    """Index children (of anyone) still running for the cache `cache`."""
    return children_running(INDEX_CHILD, str(cache))


def stop_onwards(output: str) -> str:
    """A session's output from its breakpoint's stop on (the first instruction's address
    varies)."""
    return output[output.index("Breakpoint 1, ") :]
