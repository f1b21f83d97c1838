"""Where gdb cannot be the oracle of a function call in an expression.

gdb 13.1 saves and writes back a thread's x86 XSAVE state around a call with its own fixed
size; on a CPU whose XSAVE area is larger (Intel AMX: XTILECFG and XTILEDATA, 11008 bytes)
the kernel refuses the write and gdb prints `GDB_CALL_ERROR` instead of calling. There a
test checks our output against what the program itself establishes (its source's values,
the literals the test already asserts of gdb's side); wherever gdb's calls work it stays
the oracle, so a host without that CPU compares with gdb as before. Nothing here names a
CPU: the error in gdb's own transcript is what tells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from tests.support.gdb_xstate import GDB_WRITE_ERROR as GDB_CALL_ERROR
from tests.support.gdb_xstate import gdb_could_not_write

__all__ = ["GDB_CALL_ERROR", "expected_outputs", "gdb_could_not_call"]


def gdb_could_not_call(*texts: str) -> bool:
    """Whether gdb printed its XSAVE write-back error (a call's registers, gdb_xstate.py) in TEXTS."""
    return gdb_could_not_write(*texts)


def expected_outputs(gdbs: Sequence[str], known: Mapping[int, str], whole: bool = False) -> list[str]:
    """gdb's outputs, each one that is gdb's call error replaced by KNOWN's.

    WHOLE: the outputs depend on one another (value numbers, a counter the calls bump), so
    after one failed call none of gdb's can be trusted and all come from KNOWN. An output
    needed from KNOWN that it lacks is skipped with gdb's error as the reason, never guessed.
    """
    if not gdb_could_not_call(*gdbs):
        return list(gdbs)
    needed = range(len(gdbs)) if whole else [i for i, text in enumerate(gdbs) if gdb_could_not_call(text)]
    missing = [index for index in needed if index not in known]
    if missing:
        pytest.skip(f"gdb cannot call functions on this host: {GDB_CALL_ERROR} (no expectation for {missing})")
    return [known[index] if index in needed else text for index, text in enumerate(gdbs)]
