"""MI input lines: tokens, names, c-string arguments, options."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.adapters.mi.output import c_string
from aliceserver.adapters.mi.parser import (
    CliCommand,
    MiCommand,
    MiParseError,
    getopt,
    parse_line,
    split_args,
)
from aliceserver.errors import ProtocolError


def test_tokens_and_commands() -> None:
    command = parse_line("12-break-insert -t main")
    assert isinstance(command, MiCommand)
    assert (command.token, command.name, command.args) == ("12", "break-insert", ["-t", "main"])
    cli = parse_line("7print 1")
    assert isinstance(cli, CliCommand) and (cli.token, cli.text) == ("7", "print 1")
    assert isinstance(parse_line("12 -break-list"), CliCommand)  # gdb: a blank makes it CLI
    assert isinstance(parse_line(""), CliCommand)


def test_blanks_before_a_command_are_skipped() -> None:
    """gdb's mi_parse skips blanks before the token (mi-multi-commands.exp sends
    ` -data-evaluate-expression $a`); a CLI command loses those after its token too."""
    command = parse_line(" \t 4-data-evaluate-expression $a")
    assert isinstance(command, MiCommand) and (command.token, command.name) == ("4", "data-evaluate-expression")
    cli = parse_line("12 -break-list")
    assert isinstance(cli, CliCommand) and (cli.token, cli.text) == ("12", "-break-list")
    cli = parse_line("  print 1")
    assert isinstance(cli, CliCommand) and (cli.token, cli.text) == ("", "print 1")


def test_c_string_arguments() -> None:
    command = parse_line('-data-evaluate-expression "\\"tab\\there\\"" x')
    assert isinstance(command, MiCommand)
    assert command.args == ['"tab\there"', "x"]
    assert split_args(r"/a\ b.c:3 next") == ["/a b.c:3", "next"]  # Vim's fnameescape
    with pytest.raises(MiParseError, match=r'Problem parsing arguments: data-evaluate-expression "\\"x'):
        parse_line('4-data-evaluate-expression "\\"x')


@given(st.lists(st.text(), max_size=5))
def test_quoted_arguments_round_trip(args: list[str]) -> None:
    line = "-x " + " ".join(c_string(a) for a in args)
    command = parse_line(line)
    assert isinstance(command, MiCommand)
    assert command.args == [a.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape") for a in args]


def test_quoted_option_is_an_argument() -> None:
    """gdb reads global options from the raw text: a c-string "--thread" is an argument."""
    command = parse_line('-x "--thread"')
    assert isinstance(command, MiCommand) and command.args == ["--thread"] and command.thread is None
    command = parse_line('-x --thread 2 "--frame"')
    assert isinstance(command, MiCommand) and command.args == ["--frame"] and command.thread == 2


def test_global_options() -> None:
    command = parse_line("5-stack-list-locals --thread 1 --frame 2 --simple-values")
    assert isinstance(command, MiCommand)
    assert (command.thread, command.frame, command.args) == (1, 2, ["--simple-values"])
    assert parse_line("-exec-continue --all").all_threads  # type: ignore[union-attr]
    with pytest.raises(MiParseError, match="Invalid thread id"):
        parse_line("-exec-next --thread x")


def test_getopt() -> None:
    options = getopt("break-insert", ["-t", "-c", "x > 1", "-i", "3", "main"], flags="t", valued="ci")
    assert options.has("t") and options.get("c") == "x > 1" and options.get("i") == "3"
    assert options.rest == ["main"]
    assert getopt("data-disassemble", ["-s", "$pc", "--", "0"], valued="s").rest == ["0"]
    assert getopt("x", ["-5"]).rest == ["-5"]  # a negative number is not an option
    with pytest.raises(ProtocolError, match="Unknown option ``-foo''"):
        getopt("break-insert", ["--foo", "main"], flags="t")
