"""A process to attach to that has dlopened a library (tests/programs/dlopen_wait.c)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.build import Builder


@contextmanager
def dlopen_waiting(builder: Builder, library: Path) -> Iterator[tuple[Path, int]]:
    """(program, pid) of dlopen_wait running with `library` loaded (its "loaded" line read);
    killed and reaped at the end."""
    program = builder.build("dlopen_wait", flags=("-g",))
    proc = subprocess.Popen(
        [str(program), str(library)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"loaded\n"
        yield program, proc.pid
    finally:
        proc.kill()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
