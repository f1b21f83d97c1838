"""A console line's command word read as gdb reads it (valid_cmd_char_p): letters,
digits, `_`, `-` and `.` (`5`, `-foo` are words gdb has no command for), and a line that
starts with none of them names the command "" (`/tmp/x`, `@x`, `(x)`); it named the
line's first blank-separated run before."""

from __future__ import annotations

from pathlib import Path

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs

pytestmark = [needs_gdb]

LINES = ["/tmp/x", "@x", "(x)", "5", "-foo", "nosuch arg", "p/x 5", "info b"]


def test_command_words_like_gdb(tmp_path: Path) -> None:
    args = ["-batch", "-nx", *ex(*LINES)]
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert got.stderr.count('Undefined command: "".') == 3 and 'Undefined command: "5".' in got.stderr
