"""tests/programs/longrun.c started by a test, for attaching to it."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.build import Builder


@contextmanager
def running_longrun(builder: Builder) -> Iterator[subprocess.Popen[bytes]]:
    """longrun running (its output discarded); killed and reaped at the end."""
    proc = subprocess.Popen(
        [str(builder.build("longrun"))], stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    try:
        time.sleep(0.3)  # running
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=10)
