"""gdb's trace state variables and trace experiment commands on its native target, where
no trace experiment runs (tracepoint.c, mi-main.c): -trace-define-variable,
-trace-list-variables, tvariable, info tvariables, delete tvariable, -trace-status,
-trace-start/-stop/-save, -trace-frame-collected, -trace-find, tfind, tsave and tdump,
before the program runs and stopped at a breakpoint: the same records as gdb 13's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_script import transcript

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def _console(text: str) -> str:
    return '-interpreter-exec console "' + text.replace('"', '\\"') + '"'


_VARIABLES = [
    "-trace-define-variable", "-trace-define-variable a", "-trace-define-variable $a",
    "-trace-define-variable $b 7", "-trace-define-variable $a 3", "-trace-define-variable $c 1 2",
    "-trace-define-variable $c nosuch", "-trace-define-variable $", "-trace-define-variable $1",
    "-trace-define-variable $a-", "-trace-list-variables", "-trace-list-variables 1",
    _console("tvariable $d = 3"), _console("tvariable $d = 3"), _console("tvariable $d=4+1"),
    _console("tvariable"), _console("tvariable d"), _console("tvariable $"), _console("tvariable $1"),
    _console("tvariable $e f"), "-trace-define-variable $f 0x10+'A'", _console("tvariable $g = add"),
    _console("tvariable $h = -1.9"), _console("tvariable $i = (char) 66"), _console("info tvariables"), _console("delete tvariable $a b $zz"),
    "-trace-list-variables", _console("delete tvariable"), _console("info tvariables"), "-trace-list-variables",
]  # fmt: skip

_EXPERIMENT = [
    "-trace-status", "-trace-start", "-trace-stop", "-trace-save", "-trace-save -q f", "-trace-save -r f",
    "-trace-frame-collected", "-trace-frame-collected x", "-trace-find", "-trace-find none", "-trace-find foo",
    "-trace-find frame-number", "-trace-find frame-number 0", "-trace-find tracepoint-number 1",
    "-trace-find tracepoint-number", "-trace-find pc 0", "-trace-find pc nosuch", "-trace-find pc-inside-range 1",
    "-trace-find pc-outside-range 1 2", "-trace-find line 99", "-trace-find line add", "-trace-find range 1 2",
    _console("tfind"), _console("tfind -"), _console("tfind start"), _console("tfind 3"), _console("tfind -5"),
    _console("tfind end"), _console("tfind none"), _console("tfind tracepoint"),
    _console("tfind range"), _console("tfind outside 1, 2"), _console("tfind line 99"), _console("tfind nosuch"),
    _console("tfind st"), _console("tfind e"), _console("tfind n"), _console("tfind t"), _console("tfind o 1,2"),
    _console("tfind 1+1"), _console("tsave"), _console("tsave -z f"), _console("tsave -r g"), _console("tdump"),
    # an unclosed quote runs to the end of the line (gdb's buildargv), not an error
    _console('tsave "h'), _console('delete tvariable $zz "b'), _console('interpreter-exec mi "-trace-status'),
]  # fmt: skip


@pytest.mark.parametrize("started", [False, True], ids=["before-run", "at-breakpoint"])
def test_trace_commands_answer_as_gdb(builder: Builder, tmp_path: Path, started: bool) -> None:
    prog = builder.build("cli_prog")
    # without a process gdb 13 fails an assertion at these (we say "No registers.")
    start = ["-break-insert add", "-exec-run", _console("tfind pc"), _console("tfind tracepoint 2")] if started else []
    commands = [*start, *_VARIABLES, *_EXPERIMENT, "-trace-save f", _console("tsave g")]
    runs = {}
    for debugger in ("gdb", "ours"):
        cwd = tmp_path / debugger
        cwd.mkdir()
        runs[debugger] = transcript(debugger, prog, commands, cwd)
    assert runs["ours"] == runs["gdb"]
    assert '^done,supported="0"' in runs["ours"]
    assert any(line.startswith('^done,found="0",frame={level="0"') for line in runs["ours"]) == started
    # gdb begins the trace file before the target refuses the rest: the same bytes
    for name in ("f", "g", "h"):
        assert (tmp_path / "ours" / name).read_bytes() == (tmp_path / "gdb" / name).read_bytes()


def test_finding_no_trace_frame_selects_frame_0_again_as_gdb(builder: Builder, tmp_path: Path) -> None:
    """gdb's tfind_1 clears the frame cache and with it the selected frame, found or not
    (an error before the search keeps it); from a script, no frame found is no error."""
    prog = builder.build("cli_prog")
    script = tmp_path / "finds.gdb"
    script.write_text("tfind\ntfind 2\ntfind start\n")
    commands = ["-data-evaluate-expression $trace_line", "-break-insert add", "-exec-run"]
    for step in ("-trace-find pc 0", "-trace-find none", "-trace-find frame-number", _console("tfind none"),
                 _console("tfind 3"), _console(f"source {script}"), "-trace-find line add"):  # fmt: skip
        commands += ["-stack-select-frame 1", step, "-stack-info-frame"]
    commands.append("-data-evaluate-expression $trace_line")  # -1 once a search was made
    got = transcript("ours", prog, commands, tmp_path)
    assert got == transcript("gdb", prog, commands, tmp_path)
    levels = [line[len('^done,frame={level="'):][0] for line in got if line.startswith("^done,frame={level=")]
    assert levels == ["0", "0", "1", "0", "1", "0", "0"]
    values = [line for line in got if line.startswith("^done,value=")]
    assert values == ['^done,value="void"', '^done,value="-1"']
