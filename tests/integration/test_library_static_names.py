"""Names a stripped library keeps only in its separate debug file (Debian's libc6-dbg),
found by name as gdb 13 finds them:

- static functions its DWARF alone names (`__pthread_kill_implementation`,
  `__libc_start_call_main`: not in the debug file's .symtab either) for `break`, `info
  line` and `frame function`;
- local ELF symbols of the debug file's .symtab (`__restore_rt`, in libc and in the
  loader) for `print`, `info address`, `info symbol`, `break` and `info line`.

Skipped where gdb itself does not find them (libc6-dbg not installed).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, theirs
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("raise_sig")


def _needs_libc_debug(program: Path, name: str) -> None:
    found = theirs(["-batch", "-nx", *ex("break main", "run", f"info line {name}"), str(program)], program.parent)
    if "not defined" in found.stderr or "No symbol" in found.stderr:
        pytest.skip(f"gdb finds no {name} here (glibc's debug info, libc6-dbg, is not installed)")


def test_static_functions_only_the_dwarf_names(program: Path) -> None:
    _needs_libc_debug(program, "__pthread_kill_implementation")
    names = ("__pthread_kill_implementation", "__libc_start_call_main", "_IO_new_file_overflow")
    commands = ["break main", "run", *[f"break {name}" for name in names],
                "info line __pthread_kill_implementation", "info line __libc_start_call_main", "info breakpoints",
                "delete", "continue", "frame function __pthread_kill_implementation",
                "frame function __libc_start_call_main"]  # fmt: skip
    assert_like_gdb([*ex(*commands), str(program)], program.parent)


def test_local_symbols_of_the_debug_file(program: Path) -> None:
    _needs_libc_debug(program, "__restore_rt")
    commands = ["break main", "run", "print __restore_rt", "info address __restore_rt", "info symbol __restore_rt",
                "break __restore_rt", "info line __restore_rt", "info breakpoints"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert re.search(r"\$1 = \{<text variable, no debug info>\} 0x[0-9a-f]+ <__restore_rt>", got.stdout)
