"""deferred_names: pyelftools' section readers that DWARFInfo imports for its methods are
imported at their first call in a session started as the front ends start one
(import_quietly), and give what they give without the deferral."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.build import Builder

pytestmark = pytest.mark.timeout(60)

_CHILD = r"""
import json, sys
if sys.argv[2] == "quietly":
    from aliceserver.startup import import_quietly
    import_quietly("aliceserver.debuggers.ptrace.engine")
loaded_before = sorted(m for m in ("elftools.dwarf.constants", "elftools.dwarf.lineprogram", "heapq", "copy")
                       if m in sys.modules and hasattr(sys.modules[m], "__file__"))
import copy, queue
waiting = queue.PriorityQueue()
for item in (3, 1, 2):
    waiting.put(item)
taken = [waiting.get() for _ in range(3)] + copy.deepcopy([[4]])
import elftools.dwarf.ranges
spelled = elftools.dwarf.ranges.RangeLists.__name__  # its package holds it as an import would
from elftools.elf.elffile import ELFFile
import elftools.dwarf.dwarfinfo as dwarfinfo
with open(sys.argv[1], "rb") as handle:
    dwarf = ELFFile(handle).get_dwarf_info()
    cu = next(dwarf.iter_CUs())
    program = dwarf.line_program_for_CU(cu)
    rows = [(e.state.address, e.state.line) for e in program.get_entries() if e.state]
    aranges = dwarf.get_aranges()
    ranges = dwarf.range_lists()
    frames = [type(entry).__name__ for entry in dwarf.EH_CFI_entries()] if dwarf.has_EH_CFI() else []
    from elftools.dwarf.lineprogram import LineProgram
    from elftools.dwarf.callframe import CallFrameInfo
    print(json.dumps({
        "loaded_before": loaded_before, "rows": rows, "frames": frames,
        "aranges": aranges.cu_offset_at_addr(rows[0][0]) if aranges else None,
        "ranges": type(ranges).__name__,
        "real": [isinstance(program, LineProgram), dwarfinfo.LineProgram is LineProgram,
                 dwarfinfo.CallFrameInfo is CallFrameInfo,
                 type(sys.modules["elftools.dwarf.lineprogram"]).__name__],
        "pformat": repr(cu.header)[:60], "spelled": spelled, "taken": taken,
    }))
"""


def _run(program: Path, how: str) -> dict[str, Any]:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(program), how], capture_output=True,
                          text=True, env=env, timeout=50)  # fmt: skip
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_dwarfinfos_section_readers_are_imported_at_their_first_use(builder: Builder) -> None:
    program = builder.build("calls")
    deferred, plain = _run(program, "quietly"), _run(program, "plainly")
    assert deferred["loaded_before"] == []  # a session's start imported neither
    assert plain["loaded_before"] == []  # (nothing imported them here either)
    assert deferred["real"] == [True, True, True, "module"]
    assert {k: v for k, v in deferred.items() if k != "loaded_before"} == {
        k: v for k, v in plain.items() if k != "loaded_before"}  # fmt: skip
    assert deferred["rows"] and deferred["frames"] and deferred["taken"] == [1, 2, 3, [4]]
