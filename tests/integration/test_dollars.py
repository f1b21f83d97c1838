"""gdb's `$` values against gdb 13: artificial arrays (`*arr@3`, `arr[1]@len`) and their
errors, the value history (`$`, `$$`, `$$2`, `$3`, `$1 + 1`, show values), convenience
variables (`set $i = 3`, `$i++`, `*$p`, an unset one is void), and the built-ins `$_` and
`$__` after x, `$_thread`, `$_exitcode`. The console records what print shows, MI's
-data-evaluate-expression records nothing, and both see the same variables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.batch import assert_like_gdb, needs_gdb, ours
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_ARRAYS = ("print *numbers@3", "print numbers[1]@3", "p/x *numbers@3", "p *cursor@count", "print numbers[0]@0",
           "print 1@2", "print count@2", "print corner@2", "print *numbers@-1", "print *numbers@1.5",
           "print word[0]@3", "print 5 + *numbers@2", "print (*numbers@2)[1]", "print sizeof(*numbers@3)",
           "whatis *numbers@3", "ptype numbers[0]@2", "print numbers@2")  # fmt: skip
_HISTORY = ("print $", "print $$", "print $$2", "print $1", "print count", "print $", "print $$",
            "print numbers", "print $1 + 1", "print $2[1]", "print &$2", "print $$3", "print $0",
            "print $9", "print $$9", "print", "set var $1 = 5", "show values", "show values 2", "show values +",
            "output 5", "print $")  # fmt: skip
_CONVENIENCE = ("set $i = 3", "print $i * 2", "print $i++", "print $i", "print ++$i", "print $i += 10",
                "whatis $i", "set $i = 2.5", "whatis $i", "set var $p = &numbers[2]", "print *$p", "print $p[1]",
                "print $unset", "print $unset + 1", "print $i@2", "print &$i", "print $_", "print $__",
                "x/4dw numbers", "print $_", "print $__", "whatis $_", "x/2xg numbers", "print $__", "whatis $__",
                "x/s word", "print $_", "print $__", "print $_thread", "print $_gthread", "print $_inferior",
                "print $_exitcode", "print $pc == main")  # fmt: skip


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("dollars")


def _args(prog: Path, commands: tuple[str, ...]) -> list[str]:
    args = ["-ex", f"break dollars.c:{marker_line('dollars.c', 'main')}", "-ex", "run"]
    for command in commands:
        args += ["-ex", command]
    return [*args, str(prog)]


def test_artificial_arrays_like_gdb(prog: Path) -> None:
    got = assert_like_gdb(_args(prog, _ARRAYS), prog.parent)
    assert "$1 = {1, 2, 3}" in got.stdout


def test_value_history_like_gdb(prog: Path) -> None:
    got = assert_like_gdb(_args(prog, _HISTORY), prog.parent)
    assert "The history is empty." in got.stderr


def test_convenience_variables_like_gdb(prog: Path) -> None:
    got = assert_like_gdb(_args(prog, (*_CONVENIENCE, "continue", "print $_exitcode")), prog.parent)
    assert got.stdout.splitlines()[-1] == "$21 = 3"


def test_show_convenience_lists_the_newest_first(prog: Path) -> None:
    # gdb lists its internal functions too ($_strlen...), which are not offered here.
    done = ours(["-batch", "-nx", *_args(prog, ("set $first = 1", "set $second = corner", "show convenience"))],
                prog.parent)
    lines = done.stdout.splitlines()
    assert lines.index("$second = {x = 7, y = 8}") < lines.index("$first = 1"), done.stdout
    assert "$_thread = 1" in lines


def test_mi_evaluate_records_no_history_and_shares_variables(prog: Path) -> None:
    mi = MiClient(["-i=mi", "-q", "-nx", str(prog)], cwd=prog.parent)
    try:
        mi.prompt()
        mi.ok(f"-break-insert dollars.c:{marker_line('dollars.c', 'main')}")
        mi.ok("-exec-run")
        mi.stopped()
        assert mi.ok('-data-evaluate-expression "*numbers@3"').results["value"] == "{1, 2, 3}"
        assert mi.error("-data-evaluate-expression $") == "The history is empty."
        mi.ok('-interpreter-exec console "print count"')
        assert mi.ok('-data-evaluate-expression "$ + 1"').results["value"] == "5"
        assert mi.ok('-data-evaluate-expression "$k = 40"').results["value"] == "40"
        _, lines = mi.command('-interpreter-exec console "print $k + $1"')
        assert '~"$2 = 44\\n"' in lines, lines
    finally:
        mi.send("-gdb-exit")
        mi.close()


def test_dap_repl_and_watch_share_the_session_values(prog: Path) -> None:
    source = PROGRAMS_DIR / "dollars.c"
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, prog, breakpoints={source: [marker_line(source, "main")]})
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]

        def evaluate(expression: str, context: str) -> Any:
            return client.call("evaluate", {"expression": expression, "frameId": frame, "context": context})

        assert evaluate("*numbers@3", "watch")["result"] == "{1, 2, 3}"
        assert evaluate("p count", "repl")["result"] == "$1 = 4"  # gdb's print: recorded as $1
        assert evaluate("$1 * 10", "watch")["result"] == "40"
        evaluate("$step = 5", "repl")
        assert evaluate("$step + $", "watch")["result"] == "9"
        assert evaluate("numbers[1]@count", "repl")["result"] == "{2, 3, 4, 5}"
        failed = client.request("evaluate", {"expression": "$$4", "frameId": frame, "context": "watch"})
        assert not failed["success"] and "History does not go back to $$4." in str(failed), failed
