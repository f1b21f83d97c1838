"""Console commands users type daily, against gdb 13 on one program (daily_cmds.c): list
in its forms, thread apply / frame apply and their short forms, return, jump's query,
save breakpoints, continue N. What follows an `echo ---` is compared, so the stop lines
before it (gdb's `Thread 1 "p" hit` for a threaded program) stay out of it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import assert_script_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line

pytestmark = needs_gdb
MARK = "---"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("daily_cmds")


def _after_mark(text: str) -> str:
    text = text.split(MARK + "\n", 1)[-1]
    text = "\n".join(line for line in text.splitlines() if "libthread_db" not in line)
    return re.sub(r"LWP \d+", "LWP N", text)


def _compare(prog: Path, tmp_path: Path, commands: list[str]) -> str:
    """Both debuggers run the command file; the output after the mark must be the same."""
    script = tmp_path / "cmds"
    script.write_text("\n".join(commands) + "\n")
    return assert_script_like_gdb(script, prog, prog.parent, _after_mark)


def test_list_centres_on_the_stop_goes_on_and_back(prog: Path, tmp_path: Path) -> None:
    out = _compare(prog, tmp_path, [
        "break twice", "run", f"echo {MARK}\\n", "list", "list", "list -", "list -", "list twice",
        "list 5,8", "list ,20", "list daily_cmds.c:30", "list 10,5", "list 3,", "frame 1", "list",
        "set listsize 4", f"list {marker_line('daily_cmds.c', 'done')}", "list", "list",
    ])
    twice = marker_line("daily_cmds.c", "twice")
    assert out.splitlines()[0].startswith(f"{twice - 5}\t")  # centred on the stop line
    assert "out of range" in out.splitlines()[-1]


def test_list_before_the_program_runs(prog: Path, tmp_path: Path) -> None:
    _compare(prog, tmp_path, [
        f"echo {MARK}\\n", "list", "list", "list -", "list -", "list -", "list -", "list twice,half", "list 50",
        "list *twice", "list 45", "list 60",
    ])


def test_list_errors(prog: Path, tmp_path: Path) -> None:
    for command in ("list nosuch", "list ,", "list nosuch.c:3"):
        _compare(prog, tmp_path, [f"echo {MARK}\\n", command])


def test_thread_apply_and_frame_apply(prog: Path, tmp_path: Path) -> None:
    out = _compare(prog, tmp_path, [
        "break touch", "run", f"echo {MARK}\\n", "thread apply all bt 1", "thread apply 1 print counter",
        "thread apply 1-2 print counter", "thread apply all -ascending print 1", "taas print 2",
        "tfaas print sum", "frame apply all print 3", "faas print 4", "frame apply 1 print 5",
        "frame apply -1 -q print 6", "frame apply level 1 print 7", "thread apply all -q print 5",
        "thread apply 1 -c print nosuch", "thread apply 1 -s print nosuch", "thread apply 3 1 print 1",
        "thread apply all frame apply 1 -q print 9", "thread apply 1 -c -s print 1",
    ])
    first = out.splitlines()[:3]  # newest thread first, its header, its frame
    assert first[0] == "" and re.fullmatch(r'Thread 2 \(Thread 0x[0-9a-f]+ \(LWP N\) "daily_cmds"\):', first[1])
    assert first[2].startswith("#0  worker (arg=0x0) at ") and first[2].endswith(f":{marker_line('daily_cmds.c', 'worker')}")


@pytest.mark.parametrize("command", ["thread apply", "thread apply all", "thread apply 1", "taas", "faas",
                                     "frame apply", "frame apply all", "thread apply x print 1"])
def test_apply_errors(prog: Path, tmp_path: Path, command: str) -> None:
    _compare(prog, tmp_path, ["break touch", "run", f"echo {MARK}\\n", command])


def test_jump_into_another_function_asks_first(prog: Path, tmp_path: Path) -> None:
    out = _compare(prog, tmp_path, ["break twice", "break touch", "run", "continue", f"echo {MARK}\\n",
                                    f"jump {marker_line('daily_cmds.c', 'done')}"])
    assert out.startswith("Line ") and "is not in `twice'.  Jump anyway? (y or n) [answered Y;" in out


def test_return_pops_the_frame_with_the_value(prog: Path, tmp_path: Path) -> None:
    out = _compare(prog, tmp_path, ["break twice", "break touch", "run", "continue", f"echo {MARK}\\n",
                                    "return 42", "print sum", "next", "print sum", "delete", "frame 1", "return",
                                    "print $pc == $_siginfo", "bt 1"])
    assert "$2 = 42" in out


def test_return_from_a_void_function(prog: Path, tmp_path: Path) -> None:
    _compare(prog, tmp_path, ["break touch", "run", f"echo {MARK}\\n", "return", "print counter", "next",
                              "print counter"])


def test_no_note_of_other_breakpoints_in_a_script(prog: Path, tmp_path: Path) -> None:
    out = _compare(prog, tmp_path, [f"echo {MARK}\\n", "break twice", "tbreak twice", "rbreak ^half$", "break twice"])
    assert "Note:" not in out
