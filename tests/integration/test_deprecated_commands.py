"""gdb's `maintenance deprecate` and `undeprecate` (gdb.base/commands.exp; ours had no
such maintenance command): the next use of a deprecated alias or command warns once, in
gdb's words for an alias, a command and both, with the replacement or "No alternative
known."; `help` no longer lists a deprecated alias. Compared with gdb."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

_SCRIPT = """maintenance deprecate blah
maintenance undeprecate blah
maintenance deprecate p "new_p"
p 5
p 5
maintenance deprecate p "new_p"
maintenance deprecate print "new_print"
p 5
p 5
print 6
maintenance deprecate
maintenance deprecate print
print 7
print 8
maintenance undeprecate print
maintenance undeprecate p
p 9
define real_command
print 1
end
alias alias_command = real_command
alias alias_with_args_command = real_command 123
help real_command
maintenance deprecate alias_command
maintenance deprecate alias_with_args_command
help real_command
alias_command
maintenance deprecate real_command "zz"
alias_with_args_command
"""


def test_deprecated_commands_warn_once(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("jump_hits")
    script = tmp_path / "deprecate.gdb"
    script.write_text(_SCRIPT)
    got = output_like_gdb(program, [f"source {script}"])
    assert got.count("is deprecated.") == 5 and "Warning: command 'print' (p) is deprecated.\nUse 'new_print'." in got
