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

import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from tests.support.batch import normalized, ours, theirs
from tests.support.gdb_xstate import GDB_WRITE_ERROR as GDB_CALL_ERROR
from tests.support.gdb_xstate import gdb_could_not_write

__all__ = ["GDB_CALL_ERROR", "expected_outputs", "assert_like_gdb_calls", "gdb_could_not_call", "transcript_with_calls"]


def gdb_could_not_call(*texts: str) -> bool:
    """Whether gdb printed its XSAVE write-back error (a call's registers, gdb_xstate.py) in TEXTS."""
    return gdb_could_not_write(*texts)


def _failed_calls(stderr: str) -> int:
    """How many calls gdb's STDERR says failed so: the error alone, or as the error of a
    Python convenience function ($_memeq...), which gdb also reports as a Python exception."""
    return sum(1 for line in stderr.splitlines() if line in (GDB_CALL_ERROR, f"Error occurred in Python: {GDB_CALL_ERROR}"))


def _failed_call_line(line: str) -> bool:
    return line.endswith(GDB_CALL_ERROR) and line in (
        GDB_CALL_ERROR,
        f"Error occurred in Python: {GDB_CALL_ERROR}",
        f"Python Exception <class 'gdb.error'>: {GDB_CALL_ERROR}",
    )


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


def transcript_with_calls(
    stdout: str, stderr: str, values: Mapping[int, str], before_next: bool = False
) -> tuple[str, str]:
    """gdb's batch (stdout, stderr) as its calls would have printed them: VALUES maps the
    value number each failed call takes to the value the program establishes; it goes right
    after gdb's value n - 1 (BEFORE_NEXT: right before gdb's value that becomes n + 1, as
    when a line with no value comes between), gdb's value lines are renumbered past it, and
    the error lines leave stderr. Each failed call needs one entry."""
    errors = sum(1 for line in stderr.splitlines() if gdb_could_not_call(line))
    assert not stderr or errors == len(values), f"gdb failed {errors} calls, {len(values)} values given"
    lines: list[str] = []
    shift = 0

    def insert(number: int) -> int:  # the calls' values from NUMBER on; how many
        count = 0
        while number + count in values:
            lines.append(f"${number + count} = {values[number + count]}")
            count += 1
        return count

    for line in stdout.splitlines():
        match = re.match(r"\$(\d+) = ", line)
        if match is None:
            lines.append(line)
            continue
        if before_next or shift == 0:
            shift += insert(int(match[1]) + shift)
        number = int(match[1]) + shift
        lines.append(f"${number} = {line[match.end() :]}")
        if not before_next:
            shift += insert(number + 1)
    placed = sum(1 for line in lines if any(line == f"${n} = {v}" for n, v in values.items()))
    assert placed == len(values), f"no place for some of {dict(values)}"
    kept = [line for line in stderr.splitlines() if not gdb_could_not_call(line)]
    return "\n".join(lines), "\n".join(kept)


def assert_like_gdb_calls(
    args: list[str],
    cwd: Path,
    values: Mapping[int, str],
    before_next: bool = False,
    replaced: Mapping[str, str] | None = None,
    count_calls: bool = True,
) -> subprocess.CompletedProcess[str]:
    """batch.assert_like_gdb, where gdb could not call with VALUES in its calls' place
    (transcript_with_calls) and each of REPLACED's texts in gdb's stdout (a command that
    printed part of its output before the call it needed) replaced by the whole output; a
    last command that was such a call would have exited 0. COUNT_CALLS: one failed call of
    gdb's for each value and replacement (off where one replacement stands for several)."""
    args = ["-batch", "-nx", *args]
    gdbs, got = theirs(args, cwd), ours(args, cwd)
    stdout, stderr, status = normalized(gdbs.stdout), normalized(gdbs.stderr), gdbs.returncode
    if _failed_calls(gdbs.stderr):
        if _failed_calls(gdbs.stderr.rstrip("\n").rsplit("\n", 1)[-1]):
            status = 0
        for partial, whole in (replaced or {}).items():
            assert stdout.count(partial) == 1, partial
            stdout = stdout.replace(partial, whole)
        failed = _failed_calls(stderr)
        assert failed == len(values) + len(replaced or {}) or not count_calls, f"gdb failed {failed} calls"
        stdout, _ = transcript_with_calls(stdout, "", values, before_next)
        stderr = "\n".join(line for line in stderr.splitlines() if not _failed_call_line(line))
    assert (normalized(got.stdout), got.returncode) == (stdout, status)
    assert normalized(got.stderr) == stderr
    return got
