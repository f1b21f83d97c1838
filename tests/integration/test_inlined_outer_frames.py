"""An inlined call in an outer frame, as gdb 13 shows and finishes it (src_inline.c -O2:
`scale` and `clamp` inlined into main and twice, each calling the real `sink`).

`info frame` at such a call: its registers are those the real frame inside it unwinds (gdb's
inline frames pass each register through), so "Previous frame's sp is" that frame's CFA and
its saved registers are that frame's ("rip at ..."); inlined into the innermost function,
its registers are the thread's own ("Previous frame's sp in rsp"). `finish` with it selected
returns to its function, then steps over the rest of the inlined call to a line start
(gdb's finish_command for an INLINE_FRAME), reported as function-finished, with no value.
`return` there pops the real frame inside it (gdb refuses only where frame 0 is an inlined
call: its check is of the current frame), which leaves the pc at the start of another
inlined call, shown as frame 0. A pc moved by a write (`set var $pc`, `return`) shows every
inlined call there (gdb's inline state is of the pc it was made at) and a breakpoint there
is hit at the next `continue`, not stepped over (gdb steps over one only at the pc its
thread stopped at). In an inlined call's frame its function's name is in scope (gdb keeps
it in the call's own block): that copy of its code, nowhere else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import assert_script_like_gdb, needs_gdb, output_like_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import parse_record

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

FLAGS = ("-g", "-O2")
# The program's environment differs (gdb adds LINES and COLUMNS): so do stack addresses
STACK = re.compile(r"0x7ff[0-9a-f]{9}")


def _kept(text: str) -> str:
    lines = [line for line in text.splitlines() if "libthread_db" not in line]
    return STACK.sub("0x7ff...", "\n".join(lines))


def _script(tmp_path: Path, commands: list[str]) -> Path:
    script = tmp_path / "commands.gdb"
    script.write_text("\n".join(commands) + "\n")
    return script


def test_info_frame_of_outer_inlined_calls_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """At each stop in sink: the inlined call above it, and the one above that where two
    are nested (clamp in scale); then at a stop inside nested inlined calls themselves."""
    program = builder.build("src_inline", FLAGS)
    at_each = ["bt", "info frame", "up", "info frame", "up", "info frame"]
    commands = ["break sink", "run", *at_each, *(c for _ in range(4) for c in ("continue", *at_each)),
                "delete", "break src_inline.c:15", "run", *at_each]  # fmt: skip
    got = assert_script_like_gdb(_script(tmp_path, commands), program, tmp_path, _kept)
    assert got.count("Previous frame's sp is") >= 10 and "Saved registers:\n  rip at" in got
    assert "inlined into frame 2, caller of frame at" in got
    assert "Previous frame's sp in rsp" in got  # clamp inlined into scale inlined into main


def test_finish_out_of_outer_inlined_calls_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """From sink's caller (scale inlined into main, into twice; mix into twice), and from
    the outer of two nested inlined calls at a stop inside them."""
    program = builder.build("src_inline", FLAGS)
    commands = ["break sink", "run", "up", "finish", "bt", "info frame", "continue", "up", "finish", "bt",
                "continue", "up", "finish", "bt", "next", "bt", "delete", "break src_inline.c:15", "run",
                "up", "finish", "bt", "next"]  # fmt: skip
    got = assert_script_like_gdb(_script(tmp_path, commands), program, tmp_path, _kept)
    assert "main () at" in got and "twice (n=19) at" in got
    assert "finish out of an inlined call" not in got


def _mi_finish(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    """-exec-finish --frame 1 at sink's first two stops: the *stopped records' reason and
    frame, and the stack after."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    seen: list[object] = []
    try:
        mi.prompt()
        mi.ok("-break-insert sink")
        mi.ok("-exec-run")
        for _ in range(2):
            mi.stopped()
            _, lines = mi.command("-exec-finish --thread 1 --frame 1")
            lines += mi.read_until(lambda line: line.startswith("*stopped"))
            results = parse_record(lines[-1]).results
            seen.append([results.get(key) for key in ("reason", "frame", "gdb-result-var", "return-value")])
            _, lines = mi.command("-stack-list-frames")
            seen.append(parse_record(lines[-1]).results)
            mi.ok("-exec-continue")
        return seen
    finally:
        mi.close()


def test_mi_finish_out_of_an_outer_inlined_call_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("src_inline", FLAGS)
    ours = _mi_finish(program, tmp_path, gdb=False)
    assert ours == _mi_finish(program, tmp_path, gdb=True)
    assert [entry[0] for entry in ours[::2]] == ["function-finished"] * 2  # type: ignore[index]


def test_return_from_an_outer_inlined_call_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("src_inline", FLAGS)
    commands = ["break sink", "run", "up", "return", "bt", "break src_inline.c:15", "continue", "return", "bt",
                "up", "return", "bt", "delete", "break sink", "continue", "up", "return 7", "bt",
                "info registers rax", "next", "next", "delete", "continue"]  # fmt: skip
    got = output_like_gdb(program, commands)  # -ex: gdb goes on after an error, as a script does not
    assert got.count("Can not force return from an inlined function.") == 2  # frame 0 inlined
    assert "#0  clamp (limit=1000, v=15) at" in got
    assert re.search(r"rax +0x[0-9a-f]*00000007 ", got)  # an int: eax written, as gdb


def test_a_moved_pc_shows_its_inlined_calls_and_hits_its_breakpoint_like_gdb(
    builder: Builder, tmp_path: Path
) -> None:
    """Stopped at twice's first instruction, which starts scale's inlined code (hidden);
    the pc moved to sink's breakpoint, and moved away and back at a breakpoint."""
    program = builder.build("src_inline", FLAGS)
    commands = ["break twice", "run", "break sink", "set var $pc = sink", "p $pc", "bt", "continue", "bt",
                "set var $pc = $pc + 1", "set var $pc = $pc - 1", "continue", "bt"]  # fmt: skip
    got = assert_script_like_gdb(_script(tmp_path, commands), program, tmp_path, _kept)
    assert "$1 = (void (*)()) 0x" in got and "#0  sink (v=19) at" in got  # no hidden inlined call
    assert "Breakpoint 2, sink (v=19)" in got  # hit where the pc was moved, not stepped over
    assert "Breakpoint 2, sink (v=v@entry=31)" in got  # moved back: stepped over, the next hit


def test_an_inlined_call_names_its_function_in_its_frame_like_gdb(builder: Builder) -> None:
    program = builder.build("src_inline", FLAGS)
    at_each = ["p scale", "p clamp", "whatis scale", "ptype clamp", "p mix", "up"]
    got = output_like_gdb(program, ["break src_inline.c:15", "run", "bt", *at_each * 3])
    assert re.search(r"\$1 = \{int \(int, int\)\} 0x[0-9a-f]+ <main\+\d+>", got)  # clamp in its frame
    assert 'No symbol "scale" in current context.' in got


def test_until_and_advance_go_by_the_selected_frame_like_gdb(builder: Builder) -> None:
    """gdb's until/advance LOCATION stop at the selected frame's return (an inlined call's:
    the function it is in), and until's location only in that frame or an outer one; they
    went by frame 0 (sink's return stopped them in scale)."""
    program = builder.build("src_inline", FLAGS)
    got = output_like_gdb(program, ["break sink", "run", "up", "advance 43", "bt", "continue", "up 2", "advance 45",
                                    "bt", "delete", "run", "up", "until 44", "bt", "run", "up 2", "until 43", "bt"])  # fmt: skip
    assert "main () at" in got and "\nscale (factor=2, x=19) at" not in got  # no stop in scale
