"""The child processes a session starts to work ahead (aliceserver/aheadchild.py), as the
tests see them: made to fail or hang, and found still running."""

from __future__ import annotations

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
