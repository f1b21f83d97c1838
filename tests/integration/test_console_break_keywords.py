"""`break` and its keywords against gdb 13 on one program (daily_flow.c): the note of the
breakpoints already at a pc (every one of them, their thread, when typed), `break` with no
argument (the shown line's sal: no function in info breakpoints), `clear` with no
argument (the frame's line), `thread`/`task` abbreviated after a condition (which ends
there), a malformed thread id, and `finish` refusing arguments."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, output_like_gdb, theirs
from tests.support.build import Builder, marker_line
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = needs_gdb


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("daily_flow")


def _typed(prog: Path, tmp_path: Path, lines: list[str]) -> tuple[str, str]:
    """The lines typed to both (stdin: gdb's from_tty, its notes shown); gdb's output and
    ours (errors in their place)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               XDG_CACHE_HOME=str(tmp_path))  # fmt: skip
    runs = [
        [str(gdb_path()), "-nx", "-q", str(prog)],
        [sys.executable, "-m", "aliceserver", "-nx", "-q", str(prog)],
    ]
    expected, got = (
        subprocess.run(
            argv,
            input="\n".join(["set width 0", *lines]) + "\n",
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=120,
            cwd=prog.parent,
            env=env,
        ).stdout  # fmt: skip
        for argv in runs
    )

    def kept(text: str) -> str:
        """From the first prompt (gdb names the program as given) to the session's end
        (our `quit` echoed where gdb's stdin ends)."""
        return normalized(text.split("\n", 1)[-1]).removesuffix("(gdb) quit").removesuffix("(gdb) ")

    return kept(expected), kept(got)


def test_typed_break_notes_every_breakpoint_at_the_pc_and_clear_takes_the_line(
    prog: Path, tmp_path: Path
) -> None:
    loop = marker_line("daily_flow.c", "loop")
    expected, got = _typed(prog, tmp_path, [
        "break main", "run", "break", "break", "break", "break if (1)", "info breakpoints", "clear",
        f"tbreak {loop}", f"break {loop} thread 1", f"break {loop}", "disable 8", f"break {loop}",
        "continue", "clear", "clear", "finish 123", "kill",
    ])  # fmt: skip
    assert got == expected
    assert "Note: breakpoints 1, 2, 3 and 4 also set at pc" in got
    assert re.search(
        r"\n2 +breakpoint +keep y +0x[0-9a-f]+ /\S+/daily_flow\.c:\d+\n", got
    )  # no `in main at`
    assert "Note: breakpoints 6, 7 (thread 1) and 8 (disabled) also set at pc" in got
    assert (
        "No breakpoint at this line." in got
        and 'The "finish" command does not take any arguments.' in got
    )


def test_condition_ends_at_an_abbreviated_thread_or_task(prog: Path) -> None:
    add = marker_line("daily_flow.c", "add")
    args = ["-batch", "-nx", *ex(
        "break main", "run",
        "break *main if (1==1) thread 999", "break *main if (1==1) t 999", "break *main if (1==1) th 999",
        "break *main if (1==1) ta 999", "break main if (1==1) task 999", "break -q main thread 999 if (1==1)",
        f"break {add} thread foo", f"break {add} thread foo if 1", f"break {add} thread 0",
        f"break {add} thread 1.999", f"break {add} thread 2.1", f"break {add} task foo",
        f"break {add} if  value == 1  if value == 2", f"break {add} if value == 3", "info breakpoints",
        "finish 1",
    ), str(prog)]  # fmt: skip
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert (
        "Unknown thread 999.\nUnknown thread 999.\nUnknown thread 999.\nUnknown task 999."
        in got.stderr
    )
    assert "Invalid thread ID: foo if 1\n" in got.stderr


def test_thread_specific_breakpoints_shown_and_deleted_with_their_thread(
    prog: Path, tmp_path: Path
) -> None:
    """info breakpoints' ` thread N` and `stop only in thread N`; the breakpoint deleted,
    in gdb's words, when its thread goes: at the program's exit, a restart (before the new
    `Starting program:`) and a kill; `start` tells its temporary breakpoint first."""
    add, square = marker_line("daily_flow.c", "add"), marker_line("daily_flow.c", "square")
    expected, got = _typed(prog, tmp_path, [
        "break main", "run", f"break {add} thread 1", f"break {square} if x > 1 thread 1", "info breakpoints",
        "continue", "continue", "info breakpoints", "delete 2", "continue",
        f"break {add} thread 1", "run", "info breakpoints", f"break {add} thread 1", "start", "info breakpoints",
        f"break {add} thread 1", "kill", "info breakpoints",
    ])  # fmt: skip
    assert got == expected
    assert "in add at " in got and f"daily_flow.c:{add} thread 1\n\tstop only in thread 1\n" in got
    assert "\tstop only if x > 1 \n\tstop only in thread 1\n" in got
    assert "Thread-specific breakpoint 3 deleted - thread 1 no longer in the thread list." in got


def test_condition_command_refuses_junk_after_its_expression(prog: Path) -> None:
    """gdb's lexer ends a condition at `if` or `thread N`: what follows is junk (after the
    unknown symbols of what came first)."""
    args = ["-batch", "-nx", *ex(
        "break main", "run", "cond 1 i == 10 if", "cond 1 i == 10 thread 1", "cond 1 nosuch if",
        'cond 1 "if" == 0', "cond 1 iff == 2", "cond 1 i == 1", "info breakpoints",
    ), str(prog)]  # fmt: skip
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert 'Junk at end of expression\nJunk at end of expression\nNo symbol "nosuch"' in got.stderr


def test_a_pending_breakpoint_keeps_its_keywords_unparsed(prog: Path) -> None:
    """gdb keeps what follows a pending location as it was typed (extra_string): shown after
    the location when set and in info breakpoints, with no `stop only if` line yet."""
    out = output_like_gdb(prog, [
        "set breakpoint pending on", "break nosuchfile.c:22 if x > 3", "break nosuchfunc if  y",
        "tbreak nosuch2 -force-condition if z", "break add if value > 3", "info breakpoints",
    ])  # fmt: skip
    assert "Breakpoint 1 (nosuchfile.c:22 if x > 3) pending." in out
    assert "<PENDING>          nosuchfunc if  y\n" in out and "\tstop only if value > 3\n" in out


def test_enable_disable_and_ignore_say_what_is_wrong_as_gdb(prog: Path) -> None:
    """gdb's extract_bp_num and ignore_command errors: a missing number list after once,
    count or delete, a word, a negative number, a bad location number, a range with a
    location; ignore's missing or bad arguments, and its count as an expression."""
    out = output_like_gdb(prog, [
        "break main", "break add", "enable count 2", "enable once", "enable delete", "disable 1 fooo.1",
        "disable fooo", "enable 1.x", "ignore", "ignore 1", "ignore foo 1", "ignore 1 1 + 1", "disable -1",
        "enable 9", "enable 2.-1", "disable 1-2.1", "disable 1x.2", "info breakpoints",
    ])  # fmt: skip
    assert "Bad breakpoint number 'fooo.1'\n" in out and "\tignore next 2 hits\n" in out
