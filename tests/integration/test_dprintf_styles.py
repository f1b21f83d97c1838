"""dprintf-style, dprintf-function and dprintf-channel against gdb 13 (gdb's dprintf.exp):
`call` makes a dprintf a call of the function in the program (`fprintf (stderr,...)` with
a channel), `agent` falls back to gdb's printf with gdb's warning, each setting remakes
every dprintf's command (shown by info breakpoints), and an empty function is refused
when call style needs it, the old command kept. Ours refused the three settings."""

from __future__ import annotations

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_dprintf_styles_like_gdb(builder: Builder) -> None:
    prog = builder.build("dprintf_styles")
    line = marker_line("dprintf_styles.c", "call")
    got = output_like_gdb(prog, [
        "show dprintf-function", "show dprintf-channel",
        'dprintf foo,"arg=%d g=%d\\n", arg, g', f"break {line}", "run",
        "set dprintf-style call", "info breakpoints", "continue",
        "set dprintf-function fprintf", "set dprintf-channel stderr", "show dprintf-channel", "continue",
        "set dprintf-style agent", "info breakpoints", "continue",
        "set dprintf-function", "set dprintf-style call", "show dprintf-style", "info breakpoints", "continue",
        "kill",
    ])  # fmt: skip
    assert "call (void) printf (\"arg=" in got
    assert "falling back to GDB printf" in got
