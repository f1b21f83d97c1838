"""The output pump stops reading while the front end is behind, however fast the program
writes: the pipe fills and the writer blocks, as on a terminal nobody reads."""

from __future__ import annotations

import os
import subprocess
import time

from aliceserver.debuggers.events import Output
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.ptrace.output import _MAX_PENDING, OutputPump

CHUNKS = 1000  # 64 KiB each: far more than the pump may hold


def test_a_writer_faster_than_the_reader_is_held_back() -> None:
    source = EventSource()
    events = source.subscribe()
    read_end, write_end = os.pipe()
    # dd writes as fast as the pipe takes it: the pipe is never empty while it runs.
    writer = subprocess.Popen(["dd", "if=/dev/zero", "bs=65536", f"count={CHUNKS}"],
                              stdout=write_end, stderr=subprocess.DEVNULL)  # fmt: skip
    os.close(write_end)
    pump = OutputPump(source, {"stdout": read_end})
    try:
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and events.backlog() <= _MAX_PENDING:
            time.sleep(0.01)
        time.sleep(0.5)  # room for a pump that does not stop to go on reading
        assert events.backlog() <= _MAX_PENDING + 2
        assert writer.poll() is None  # blocked in write, not done
        received = 0
        while received < CHUNKS * 65536:  # a reader that catches up gets everything
            event = events.get(timeout=10)
            assert isinstance(event, Output) and event.category == "stdout"
            received += len(event.text)
        assert received == CHUNKS * 65536
        assert writer.wait(timeout=10) == 0
    finally:
        writer.kill()
        writer.wait()
        pump.close()
