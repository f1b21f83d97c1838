"""set/show displaced-stepping as gdb 13 (sigstep.exp sets it off and on): auto and off
are taken (the engine steps over a breakpoint in place, the other threads stopped: gdb's
off, and auto is off in all-stop), on is refused in our words; gdb's parse of on, off and
auto (prefixes) and its error. Ours refused the setting whole."""

from __future__ import annotations

from tests.support.batch import ex, needs_gdb, ours, output_like_gdb
from tests.support.build import Builder

pytestmark = needs_gdb


def test_displaced_stepping_like_gdb(builder: Builder) -> None:
    prog = builder.build("vtalrm_spin")
    got = output_like_gdb(prog, ["show displaced-stepping", "set displaced-stepping off", "show displaced-stepping",
                                 "set displaced-stepping foo", "set displaced-stepping", "set displaced-stepping o",
                                 "set displaced-stepping a", "show displaced-stepping"])  # fmt: skip
    assert "is auto (currently off)." in got


def test_displaced_stepping_on_refused(builder: Builder) -> None:
    prog = builder.build("vtalrm_spin")
    got = ours(["-batch", "-nx", *ex("set displaced-stepping on", "show displaced-stepping"), str(prog)], prog.parent)
    assert got.stderr == 'The setting "displaced-stepping" is not supported by aliceserver except as auto or off.\n'
    assert got.stdout == "Debugger's willingness to use displaced stepping to step over breakpoints is auto (currently off).\n"

