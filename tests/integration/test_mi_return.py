"""-exec-return pops the frame the way the unwinder sees it: the caller's callee-saved
registers come back from where the callee's CFI says they are (no frame pointer needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.build import Builder
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import Tuple

pytestmark = pytest.mark.timeout(120)

FLAGS = ("-g", "-O2", "-fomit-frame-pointer", "-fno-inline")


def _run_to_work(program: Path) -> MiClient:
    mi = MiClient(["-i=mi", "-q", str(program)], cwd=program.parent)
    mi.prompt()
    mi.ok("-break-insert work")
    mi.ok("-exec-run")
    assert mi.stopped().results["reason"] == "breakpoint-hit"
    mi.prompt()
    return mi


def _expected(program: Path, r: int) -> str:
    a, b, c = 1007, 18, ord(str(program)[0]) * 3
    return f"r={r} {a} {b} {c} {a ^ b} {b * c} {a + c}"


@pytest.mark.parametrize("value", [None, "42"])
def test_return_restores_the_callers_registers(builder: Builder, value: str | None) -> None:
    program = builder.build("mi_return", flags=FLAGS)
    mi = _run_to_work(program)
    try:
        reply = mi.ok("-exec-return" + (f" {value}" if value else ""))
        frame = reply.results["frame"]
        assert isinstance(frame, Tuple) and frame["func"] == "main"
        mi.ok("-exec-continue")
        lines = mi.read_until(lambda text: text.startswith("*stopped"))
        assert lines[-1] == '*stopped,reason="exited-normally"'
        output = [text for text in mi.lines if text.startswith("r=")]
        if value is None:  # rax is whatever work left there: only the registers are checked
            assert output and output[0].split(" ", 1)[1] == _expected(program, 0).split(" ", 1)[1]
        else:
            assert output == [_expected(program, 42)]
    finally:
        mi.close()


def test_return_from_main_into_libc(builder: Builder) -> None:
    """gdb's frame_pop takes the frame before main whatever `backtrace past-main` says."""
    program = builder.build("mi_return", flags=FLAGS)
    mi = _run_to_work(program)
    try:
        mi.ok("-exec-finish")
        mi.stopped()
        mi.prompt()
        frame = mi.ok("-exec-return").results["frame"]
        assert isinstance(frame, Tuple) and frame["func"] != "main" and frame["level"] == "0"
    finally:
        mi.close()
