"""Frame 0's arguments over gdbserver are kept from one step to the next while what they
were read from is the same (source/keptsteps.py): stepping instruction by instruction in
bump(), whose arguments change in its frame (n rewritten on the stack at -O0, in registers
with a location list at -O2; label moved; what label points to written), each *stopped
must show them as gdb 13 over its own gdbserver shows them at the same stop."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.gdbserver import gdbserver
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import List, Tuple

pytestmark = pytest.mark.timeout(180)
STEPS = 40  # through both calls of bump() and back into main


def _stops(program: Path, gdb: bool) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(pc, function, arguments) of each *stopped: at bump, then after each stepi."""
    seen = []
    with gdbserver(program) as server:
        mi = MiClient(["-q", "-nx", "-iex", "set mi-async on", "-i=mi", str(program)], cwd=program.parent, gdb=gdb)
        try:
            mi.prompt()
            mi.ok("-gdb-set sysroot /")
            if gdb:
                mi.ok("-gdb-set debuginfod enabled off")
            record, _ = mi.command(f"-target-select remote {server.address}")
            assert record.cls == "connected"
            mi.ok("-break-insert bump")
            mi.ok("-exec-continue")
            stops = [mi.stopped()]
            mi.ok("-break-delete 1")
            for _ in range(STEPS):
                mi.ok("-exec-step-instruction")
                stops.append(mi.stopped())
        finally:
            mi.close()
    for stop in stops:
        frame = stop.results["frame"]
        assert isinstance(frame, Tuple)
        args = frame["args"]
        assert isinstance(args, List)
        listed = [(str(a["name"]), str(a["value"])) for a in args.values if isinstance(a, Tuple)]
        seen.append((str(frame["addr"]), str(frame["func"]), listed))
    return seen


@needs_gdb
@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_stepped_arguments_show_what_changed_in_their_frame(builder: Builder, level: str) -> None:
    program = builder.build("stepped_args", ("-g", level, "-fno-omit-frame-pointer"))
    ours, theirs = _stops(program, gdb=False), _stops(program, gdb=True)
    assert [stop[:2] for stop in ours] == [stop[:2] for stop in theirs]
    assert ours == theirs
    # the arguments changed between stops in bump(): what a kept copy would have missed
    in_bump = [args for _, function, args in ours if function == "bump"]
    changed = sum(1 for before, after in zip(in_bump, in_bump[1:], strict=False) if before != after)
    assert changed >= 3, in_bump
