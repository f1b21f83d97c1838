"""Hostile MI command lines against a live `python -m aliceserver -i=mi PROG`.

Generated lines (bad tokens, unterminated c-strings, unknown commands and options, real
commands with mangled arguments, binary garbage) go to one server in turn. After each, a
marker command must be answered: the server is alive and in step. Every line it printed
passes the strict MI grammar check, and afterwards a well-formed session runs the program
from a breakpoint to its exit.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.build import Builder
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import PROMPT

PROGRAM_OUTPUT = ("total=100 x=4 y=6 name=origin", 'say "hi"', "\tgrüß")
# Commands that end or leave the session, or act on other processes, are not drawn.
_COMMANDS = (
    "-break-insert", "-break-delete", "-break-condition", "-break-after", "-break-watch",
    "-exec-next", "-exec-step", "-exec-finish", "-exec-continue", "-exec-until",
    "-exec-interrupt", "-exec-jump", "-exec-return", "-exec-arguments",
    "-stack-list-frames", "-stack-list-locals", "-stack-list-variables", "-stack-info-frame",
    "-stack-select-frame", "-thread-info", "-thread-select", "-var-create", "-var-update",
    "-var-list-children", "-var-assign", "-var-set-format", "-var-delete",
    "-data-evaluate-expression", "-data-disassemble", "-data-read-memory",
    "-data-read-memory-bytes", "-data-write-memory-bytes", "-data-list-register-values",
    "-gdb-set", "-gdb-show", "-list-features", "-interpreter-exec", "-complete",
    "-info-gdb-mi-command", "-file-list-exec-source-file", "-nosuch-command",
    "print", "break", "info", "x", "list", "frame", "up", "down", "disassemble", "echo",
    "set var", "display", "bt", "thread", "handle", "shell",
)
_MARKER = "987654"
_ARG_TEXT = st.lists(
    st.sampled_from(list('abcxyz019 -_"\\*&$()[]{},=:.\t') + ["main", "argc", "\\n", "arr"]),
    max_size=20,
).map("".join)
_LINE = st.one_of(
    st.tuples(st.sampled_from(("", "12", "0", "99999999999999999999", "-3", "x")),
              st.sampled_from(_COMMANDS), _ARG_TEXT).map(lambda t: f"{t[0]}{t[1]} {t[2]}"),
    st.binary(max_size=60).map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.text(max_size=60),
    st.sampled_from(['-data-evaluate-expression "unterminated', '-var-create - * "\\q"',
                     "-break-insert -z -y main", "12-", "-", "^done", '"', "\\"]),
).map(lambda line: line.replace("\n", " ").replace("\r", " "))


def _in_step(mi: MiClient) -> None:
    """The marker command is answered: the server took the line before it and goes on."""
    mi.send(f"{_MARKER}-list-features")
    mi.read_until(lambda line: line.startswith(f"{_MARKER}^"))
    mi.read_until(lambda line: line == PROMPT)


def _forbidden(line: str) -> bool:
    words = line.lstrip("0123456789").split()
    first = words[0] if words else ""
    return first in ("-gdb-exit", "quit", "q", "kill", "-target-attach", "attach", "detach",
                     "-target-detach") or "exit" in first  # fmt: skip


def test_hostile_command_lines(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    mi = MiClient(["-i=mi", "-q", str(program)], cwd=tmp_path)
    tried = 0
    try:
        mi.prompt()

        @settings(max_examples=300, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))  # fmt: skip
        @given(line=_LINE)
        def fuzz(line: str) -> None:
            nonlocal tried
            if _forbidden(line):
                return
            tried += 1
            mi.send(line)
            _in_step(mi)
            assert mi.process.poll() is None, f"the server died on {line!r}"

        fuzz()
        assert tried > 50
        # A well-formed session still works: kill whatever the fuzz started, run to a
        # breakpoint, then to the end.
        mi.command("-exec-abort")
        mi.ok("-exec-arguments")  # the fuzz may have given the program other arguments
        mi.command("-break-delete")  # and breakpoints
        mi.ok("-break-insert -t main")
        mi.ok("-exec-run")
        stop = mi.stopped()
        assert stop.results.get("reason") == "breakpoint-hit"
        mi.ok("-exec-continue")
        end = mi.stopped()
        assert end.results.get("reason") == "exited-normally", end
        mi.prompt()
    finally:
        code = mi.close()
    assert code == 0
    mi.check(PROGRAM_OUTPUT)
