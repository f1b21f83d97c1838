"""gdb.base/commands.exp's argument forms: `commands $a $b` takes convenience variables
and ranges of them as gdb's number parser reads them (ours refused every `$` word but
$bpnum), and `eval` in a user command puts that command's `$argc`/`$argN` in the text it
made (`eval "printf \"%%d\", $arg%c", 'c'`; ours ran `$argc` unsubstituted), and `help`
of a user command names its aliases. Compared with gdb."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(120)]


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build("jump_hits")


def test_commands_of_convenience_variables(program: Path, tmp_path: Path) -> None:
    script = tmp_path / "lists.gdb"
    script.write_text("break main\nset $first = $bpnum\nbreak square\nset $second = $bpnum\nset $half = 1.5\n"
                      "commands $first $second\n  print 1234321\nend\ninfo breakpoints\n"
                      "commands $first-$second\nend\ninfo breakpoints\ncommands $half\ncommands $nosuch\n"
                      "commands 1x\ncommands 2-1\n")  # fmt: skip
    got = output_like_gdb(program, [f"source {script}"])
    assert got.count("print 1234321") == 2 and "bad breakpoint number at or near '0'" in got


def test_eval_in_a_user_command_takes_its_arguments(program: Path, tmp_path: Path) -> None:
    script = tmp_path / "args.gdb"
    script.write_text('define show_args\n  eval "printf \\"argc = %%d,\\", $arg%c", \'c\'\n  set $i = 0\n'
                      '  while $i < $argc\n    eval "printf \\" %%d\\", $arg%d", $i\n    set $i = $i + 1\n  end\n'
                      '  printf "\\n"\nend\ndefine outer\n  show_args 7 8\n  eval "echo [%c]\\\\n", \'c\'\n'
                      '  eval "printf \\"%%d\\\\n\\", $arg%d", 0\nend\nshow_args 1 2 3\nouter 41 42 43\n')  # fmt: skip
    got = output_like_gdb(program, [f"source {script}"])
    assert "argc = 3, 1 2 3" in got and "argc = 2, 7 8" in got and "41" in got


def test_help_of_a_user_command_names_its_aliases(program: Path, tmp_path: Path) -> None:
    # gdb's help lists the aliases, newest first, and writes out those with arguments
    script = tmp_path / "aliases.gdb"
    script.write_text("define real_command\nprint 1\nend\nalias alias_command = real_command\n"
                      "alias alias_with_args_command = real_command 123\nhelp real_command\n"
                      "document real_command\nDoes it.\nend\nhelp real_command\nhelp alias_command\n")  # fmt: skip
    got = output_like_gdb(program, [f"source {script}"])
    assert got.count("real_command, alias_with_args_command, alias_command\n") == 3
