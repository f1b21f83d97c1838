"""import_quietly: the module, the collector paused only meanwhile, the imports frozen."""

from __future__ import annotations

import gc
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

from aliceserver.startup import import_quietly


def test_imports_with_the_collector_paused_then_restores_it() -> None:
    name = "aliceserver.debuggers.symbols.dwarf.expr.lexer"
    sys.modules.pop(name, None)
    frozen_before = gc.get_freeze_count()
    assert gc.isenabled()
    module = import_quietly(name)
    assert module is sys.modules[name]
    assert gc.isenabled()
    assert gc.get_freeze_count() > frozen_before
    gc.disable()
    try:  # a caller that had it off keeps it off
        import_quietly("aliceserver.errors")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_module_imported_already_is_not_frozen_again() -> None:
    # A server that starts an engine per connection must not freeze each session's garbage.
    import_quietly("aliceserver.errors")
    session_objects: list[list[int]] = [[] for _ in range(100)]  # what a session made meanwhile
    frozen_before = gc.get_freeze_count()
    assert import_quietly("aliceserver.errors") is sys.modules["aliceserver.errors"]
    assert gc.get_freeze_count() == frozen_before
    assert len(session_objects) == 100


def test_a_module_another_thread_is_importing_comes_back_whole(tmp_path: Path) -> None:
    # A server's second connection asks for the engine while the first still imports it.
    (tmp_path / "slow_to_import.py").write_text(
        "import time\ntime.sleep(0.5)\nREADY = True\n"
    )
    sys.path.insert(0, str(tmp_path))
    got: list[ModuleType] = []
    first = threading.Thread(target=lambda: got.append(import_quietly("slow_to_import")))
    try:
        first.start()
        deadline = time.monotonic() + 10
        while "slow_to_import" not in sys.modules and time.monotonic() < deadline:
            time.sleep(0.001)
        module = import_quietly("slow_to_import")  # while the first thread is inside
        assert getattr(module, "READY", False)
        first.join(10)
        assert got == [module]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("slow_to_import", None)


def test_pdb_is_imported_only_when_used() -> None:
    # pyelftools imports pdb for nothing we use; a start pays for it only if it is used.
    script = (
        "import sys\n"
        "from aliceserver.startup import import_quietly\n"
        "import_quietly('aliceserver.debuggers.symbols.dwarf.dies')\n"
        "import elftools.construct.debug as debug\n"
        "assert 'pdb' in sys.modules\n"
        "print('bdb' in sys.modules, 'cmd' in sys.modules)\n"
        "print(callable(debug.pdb.post_mortem), 'bdb' in sys.modules)\n"
    )
    import subprocess

    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2]).stdout  # fmt: skip
    assert out.split() == ["False", "False", "True", "True"]


def test_leave_ends_the_process_as_sys_exit_does() -> None:
    """Its non-daemon threads finish first, then the atexit functions, buffered output is
    written, and the status is the code given."""
    import subprocess

    child = (
        "import atexit, sys, threading, time\n"
        "from aliceserver.startup import leave\n"
        "atexit.register(lambda: print('atexit'))\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), print('thread'))).start()\n"
        "sys.stdout.write('buffered\\n')\n"
        "leave(3)\n"
        "print('never')\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, cwd=root, timeout=30)
    assert (done.returncode, done.stdout.split(), done.stderr) == (3, ["buffered", "thread", "atexit"], "")


def test_traceback_comes_when_logging_formats_an_exception() -> None:
    """logging imports traceback (with textwrap, and tokenize before 3.13) for exceptions alone."""
    import subprocess

    script = (
        "import sys\n"
        "from aliceserver.startup import import_quietly\n"
        "import_quietly('aliceserver.debuggers.events')\n"
        "import logging\n"
        "print('textwrap' in sys.modules)\n"
        "try:\n"
        "    1 / 0\n"
        "except ZeroDivisionError:\n"
        "    logging.getLogger('x').exception('failed')\n"
        "print('textwrap' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    assert done.stdout.split() == ["False", "True"]
    assert "Traceback (most recent call last)" in done.stderr and "ZeroDivisionError" in done.stderr
