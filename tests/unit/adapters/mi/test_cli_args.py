"""gdb's command line as clients pass it."""

from __future__ import annotations

import pytest

from aliceserver.adapters.mi.cli_args import UsageError, looks_like_gdb, parse


def test_termdebug_and_emacs_command_lines() -> None:
    args = parse(["-quiet", "-iex", "set pagination off", "-iex", "set mi-async on", "-tty", "/dev/pts/3",
                  "-ex", "echo startupdone\\n", "./prog"])
    assert args.quiet and args.interpreter is None and args.tty == "/dev/pts/3"
    assert args.before == ["set pagination off", "set mi-async on"] and args.after == ["echo startupdone\\n"]
    assert args.program == "./prog"
    emacs = parse(["-i=mi", "/abs/prog"])
    assert emacs.interpreter == "mi" and emacs.program == "/abs/prog"
    assert parse(["--interpreter=mi2", "-nx", "-nh", "-fullname", "p"]).interpreter == "mi2"
    assert parse(["--interpreter", "mi3", "p"]).interpreter == "mi3"
    with_args = parse(["-q", "--args", "prog", "-x", "--y", "z"])
    assert with_args.program == "prog" and with_args.args == ["-x", "--y", "z"]
    assert parse(["prog", "1234"]).pid == 1234
    assert parse(["-p", "99"]).pid == 99


@pytest.mark.parametrize("argv, message", [
    (["--frobnicate"], "unrecognized option '--frobnicate'"),
    (["-i=pascal"], "Interpreter `pascal' unrecognized"),
    (["-ex"], "option '-ex' requires an argument"),
])
def test_refusals(argv: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse(argv)


def test_dispatch_detection() -> None:
    assert looks_like_gdb(["-i=mi", "prog"]) and looks_like_gdb(["prog"]) and looks_like_gdb(["-q"])
    assert not looks_like_gdb([]) and not looks_like_gdb(["demo"]) and not looks_like_gdb(["--version"])
    assert not looks_like_gdb(["--adapter", "dap", "--log-file", "x"])
