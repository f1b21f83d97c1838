"""gdb 13's detach_command runs no_shared_libraries after the detach: MI's -target-detach
and the console's `detach` end with =library-unloaded for each library in gdb's list's
order, after '[Inferior 1 (process N) detached]'; quit's detach (kill_or_detach) does not.
Its clear_solib marks the places of breakpoints in the libraries first: <PENDING> in the
table. Side by side with gdb, for a launched program and an attached one."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, normalized
from tests.support.build import Builder, marker_line
from tests.support.dlopen_wait import dlopen_waiting
from tests.support.longrun import running_longrun
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


@pytest.fixture
def longrun(builder: Builder) -> Iterator[subprocess.Popen[bytes]]:
    with running_longrun(builder) as proc:
        yield proc


def _detached(args: list[str], start: list[str], leave: str, *, gdb: bool, pid: int | None = None,
              then: str = "-file-list-shared-libraries") -> list[str]:  # fmt: skip
    """The records from `leave` to its answer, then `then`'s."""
    mi = MiClient(["-i=mi", "-q", "-nx", "--args", *args], cwd=Path(args[0]).parent, gdb=gdb)
    try:
        mi.prompt()
        for command in start:
            mi.ok(command)
            started = command == "-exec-run" or command.startswith("-target-attach")
            if started and not any(line.startswith("*stopped") for line in mi.lines):  # (gdb's
                mi.stopped()  # attach stop may come before its prompt)
        _, lines = mi.command(leave)
        lines += mi.command(then)[1]
    finally:
        mi.close()
    kept = [line for line in lines if line != "(gdb) " and not line.startswith("&")]
    return [normalized(line if pid is None else line.replace(str(pid), "N")) for line in kept]


@pytest.mark.parametrize("leave", ["-target-detach", '-interpreter-exec console "detach"'])
def test_detach_unloads_libraries_like_gdb(builder: Builder, leave: str) -> None:
    """A launched program that ends by itself once detached (its output is the client's)."""
    library = builder.build("lib_plugin", flags=("-O0",), extra=["-shared", "-fPIC"])
    args = [str(builder.build("dlopen_main", extra=["-ldl"])), str(library)]
    start = [
        "-inferior-tty-set /dev/null",  # (its output would cut into the records)
        f"-break-insert dlopen_main.c:{marker_line('dlopen_main.c', 'loaded')}",
        "-exec-run",
    ]
    got = _detached(args, start, leave, gdb=False)
    assert got == _detached(args, start, leave, gdb=True)
    assert any(line.startswith(f'=library-unloaded,id="{library}"') for line in got)


def test_detach_from_attached_unloads_libraries_like_gdb(builder: Builder,
                                                         longrun: subprocess.Popen[bytes]) -> None:  # fmt: skip
    program = builder.build("longrun")
    start = [f"-target-attach {longrun.pid}"]
    got = _detached([str(program)], start, "-target-detach", gdb=False, pid=longrun.pid)
    expected = _detached([str(program)], start, "-target-detach", gdb=True, pid=longrun.pid)
    # (gdb lists an attached process's libraries in the link map's order, the loader last)
    assert got == expected
    assert sum(line.startswith("=library-unloaded") for line in got) >= 2


# strlen: two places (libc's ifunc, ld.so's), a dprintf's place kept (gdb's
# disable_breakpoints_in_shlibs skips dprintfs), with no symbol to name it
_IN_LIBRARIES = [
    "break strlen",
    "break plugin_work",
    "disable 3",
    'dprintf plugin_work,"hi\\n"',
    "tbreak plugin_work",
]


def test_detach_leaves_library_breakpoints_pending_like_gdb(builder: Builder) -> None:
    library = builder.build("lib_plugin", flags=("-O0",), extra=["-shared", "-fPIC"])
    program = builder.build("dlopen_main", extra=["-ldl"])
    commands = [f"break {marker_line('dlopen_main.c', 'loaded')}", f"run {library} > /dev/null", *_IN_LIBRARIES, "detach",
                "info breakpoints", "break main", "info breakpoints"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert "3       breakpoint     keep n   <PENDING>          plugin_work\n" in got.stdout


def test_mi_detach_leaves_library_breakpoints_pending_like_gdb(builder: Builder) -> None:
    library = builder.build("lib_plugin", flags=("-O0",), extra=["-shared", "-fPIC"])
    args = [str(builder.build("dlopen_main", extra=["-ldl"])), str(library)]
    start = ["-inferior-tty-set /dev/null", f"-break-insert dlopen_main.c:{marker_line('dlopen_main.c', 'loaded')}",
             "-exec-run", "-break-insert strlen", "-break-insert plugin_work", "-break-disable 3",
             '-dprintf-insert plugin_work "hi\\n"', "-break-insert -t plugin_work"]  # fmt: skip
    got = _detached(args, start, "-target-detach", gdb=False, then="-break-list")
    assert got == _detached(args, start, "-target-detach", gdb=True, then="-break-list")
    assert 'addr="<PENDING>",pending="plugin_work"' in "".join(got)


def _attached_libraries(program: Path, pid: int, *, gdb: bool) -> list[str]:
    """The library records and lists of an attach to `pid`, then of its detach."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    try:
        mi.prompt()
        mi.ok(f"-target-attach {pid}")
        if not any(line.startswith("*stopped") for line in mi.lines):
            mi.stopped()
        for command in ("-file-list-shared-libraries", '-interpreter-exec console "info sharedlibrary"',
                        "-target-detach"):  # fmt: skip
            mi.command(command)
    finally:
        mi.close()
    kept = ("=library-", "^done,shared-libraries", '~"0x', '~"From')
    return [
        line.replace(str(pid), "N")
        for line in mi.lines
        if line.lstrip("0123456789").startswith(kept)
    ]


def test_attached_libraries_in_link_map_order_like_gdb(builder: Builder) -> None:
    """gdb reads an attached process's loader's list at once: its libraries in the list's
    order, the loader after those the program was linked with and before one it dlopened."""
    # (with -g: gdb's MI attach marks no library (*), missing debugging information)
    library = builder.build("lib_plugin", extra=["-shared", "-fPIC"])
    with dlopen_waiting(builder, library) as (program, pid):
        got = _attached_libraries(program, pid, gdb=False)
        assert got == _attached_libraries(program, pid, gdb=True)
    loaded = [line.split('"')[1] for line in got if line.startswith("=library-loaded")]
    assert "ld-linux" in loaded[-2] and loaded[-1] == str(library)
