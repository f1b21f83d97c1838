"""Source windows mark the current line; replies render as readable text."""

from __future__ import annotations

from pathlib import Path

from aliceserver.adapters.agent.render import render
from aliceserver.adapters.agent.source import SourceCache


def test_window_marks_the_current_line_and_breakpoints(tmp_path: Path) -> None:
    source = tmp_path / "prog.c"
    source.write_text("".join(f"line {n}\n" for n in range(1, 21)))
    window = SourceCache().window(str(source), 10, 2, marks=frozenset({11}))
    assert window is not None
    assert window.text.splitlines() == [
        "    8 | line 8",
        "    9 | line 9",
        "-> 10 | line 10",
        " b 11 | line 11",
        "   12 | line 12",
    ]
    assert (window.first, window.last) == (8, 12)


def test_window_clips_at_the_file_edges_and_skips_missing_files(tmp_path: Path) -> None:
    source = tmp_path / "short.c"
    source.write_text("a\nb\n")
    window = SourceCache().window(str(source), 1, 5)
    assert window is not None and window.text.splitlines()[0].startswith("-> 1 | a")
    assert SourceCache().window(str(tmp_path / "gone.c"), 1, 5) is None
    assert SourceCache().window(str(source), 99, 5) is None


def test_render_nests_and_keeps_blocks_readable() -> None:
    text = render({
        "state": "stopped",
        "source": "-> 1 | x\n   2 | y\n",
        "locals": {"i": "5"},
        "stack": ["#0 f", "#1 main"],
        "breakpoints": [{"id": 1, "hits": 0}],
        "empty": [],
        "flag": True,
    })
    assert text.splitlines() == [
        "state: stopped",
        "source: |",
        "  -> 1 | x",
        "     2 | y",
        "locals:",
        "  i: 5",
        "stack:",
        "  - #0 f",
        "  - #1 main",
        "breakpoints:",
        "  - id: 1",
        "    hits: 0",
        "empty: []",
        "flag: true",
    ]
