"""`--thread N` / `--frame N` on `-interpreter-exec console` select that thread and frame
for the command and no longer, as gdb's mi_cmd_execute does (ours ran the console command
in the selected thread and frame whatever was given), and a `--frame` without `--thread`
is refused before any command runs (ours took it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

COMMANDS = (
    '-interpreter-exec --thread 2 console "frame"',
    '-interpreter-exec console "frame"',
    '-interpreter-exec --thread 1 --frame 1 console "frame"',
    '-interpreter-exec console "frame"',
    '-interpreter-exec --thread 9 console "frame"',
    '-interpreter-exec --frame 1 console "frame"',
    "-stack-info-frame --frame 1",
    "-stack-list-locals --frame 1 1",
)


def _session(prog: Path, gdb: bool) -> list[tuple[str, list[str]]]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(prog)], cwd=prog.parent, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-exec-arguments 1 1")  # one worker thread, blocked; main stops in hit()
        mi.ok("-break-insert hit")
        mi.ok("-exec-run")
        mi.stopped()
        said: list[tuple[str, list[str]]] = []
        for text in COMMANDS:
            result, lines = mi.command(text)
            console = [line for line in lines if line.startswith('~"#')]
            said.append((f"{result.cls} {result.results.get('msg') or ''}", console))
        return said
    finally:
        mi.close()


def test_interpreter_exec_takes_its_thread_and_frame_for_one_command_like_gdb(builder: Builder) -> None:
    prog = builder.build("blocked_threads")
    expected, got = _session(prog, gdb=True), _session(prog, gdb=False)
    assert expected[0][1] and "hit" not in expected[0][1][0]  # gdb showed thread 2's frame
    assert [outcome for outcome, _ in got] == [outcome for outcome, _ in expected]
    # Frame lines compare by function: thread 2's frame 0 is libc's, whose name, path and
    # arguments are another matter (entry values of optimized glibc code).
    assert [[line.split(" in ")[-1].split(" (")[0] for line in lines] for _, lines in got] == [
        [line.split(" in ")[-1].split(" (")[0] for line in lines] for _, lines in expected
    ]
