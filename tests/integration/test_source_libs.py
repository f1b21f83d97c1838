"""Values that live in shared libraries, against gdb's `print` at the same stop: globals of
libc found through its separate debug file (libc6-dbg) and its names index, a library's
plain global seen from the program's frames, and thread-locals of libraries in several
threads: static TLS (a library linked at start-up) and dynamic TLS (one loaded by dlopen,
found through the thread's DTV)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.symbols.dwarf.sections import open_dwarf
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.events import EventLog
from tests.support.gdb import GdbReply, gdb_env, gdb_path, printed_value, run_gdb
from tests.support.session import launch

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.both_backends,
]

TLS_MAIN = PROGRAMS_DIR / "tls_main.c"
LIB_TLS = PROGRAMS_DIR / "lib_tls.c"
LIBC_GLOBALS = [
    "environ", "__environ", "program_invocation_name", "program_invocation_short_name",
    "__libc_single_threaded", "__libc_argc", "stdout", "errno", "&errno",
]  # fmt: skip
TLS_NAMES = ["lib_tls_value", "dyn_tls_value", "lib_tls_name", "lib_tls_calls"]


def libc_has_debug_file(debugger: Any) -> bool:
    for module in debugger.modules():
        if os.path.basename(module.path).startswith("libc.so"):
            opened = open_dwarf(module.path, ElfImage.load(module.path).build_id)
            return opened is not None and opened[1].path != opened[0].path
    return False


def stop_at(debugger: Any, events: EventLog, program: Path, spec: str, args: tuple[str, ...] = ()) -> Stopped:
    launch(debugger, program, args, env=gdb_env())
    debugger.insert_location_breakpoint(spec)
    debugger.resume()
    return events.wait_for(Stopped, timeout=30)


def test_libc_globals_through_its_debug_file_like_gdb(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    program = builder.build("src_basic")
    stop = stop_at(debugger, events, program, "main")
    if not libc_has_debug_file(debugger):
        pytest.skip("libc has no separate debug file here (install libc6-dbg)")
    got = {name: debugger.evaluate(name, stop.thread_id).value for name in LIBC_GLOBALS}
    replies = run_gdb(program, ["break main", "run", *[f"print {n}" for n in LIBC_GLOBALS]],
                      env=gdb_env())[2:]  # fmt: skip
    assert got == {name: printed_value(reply) for name, reply in zip(LIBC_GLOBALS, replies, strict=True)}


def tls_programs(builder: Builder) -> tuple[Path, Path]:
    """(the program, the library it loads with dlopen)."""
    library = builder.build("lib_tls", extra=["-shared", "-fPIC"])
    loaded = builder.build("lib_tls_dyn", extra=["-shared", "-fPIC"])
    # The library comes before the source that needs it: keep the linker from dropping it.
    program = builder.build("tls_main", extra=["-Wl,--no-as-needed", str(library), "-ldl"])
    return program, loaded


def gdb_thread_values(replies: list[GdbReply], threads: int) -> list[tuple[str, ...]]:
    """The printed values per thread from `thread N` followed by one print per name."""
    per = len(TLS_NAMES) + 1
    return [
        tuple(printed_value(r) for r in replies[i * per + 1 : (i + 1) * per])
        for i in range(threads)
    ]


def test_thread_locals_of_libraries_in_every_thread_like_gdb(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    """Each thread sees its own values: lib_tls (static TLS) and lib_tls_dyn (dlopen'ed, its
    blocks allocated per thread); the frames are in libc (the threads wait in a barrier),
    so the names are found in the other modules, each with its own load bias."""
    program, loaded = tls_programs(builder)
    spec = f"tls_main.c:{marker_line(TLS_MAIN, 'all_set')}"
    stop = stop_at(debugger, events, program, spec, (str(loaded),))
    threads = [t.tid for t in debugger.threads()]
    assert len(threads) == 4
    got = [tuple(debugger.evaluate(name, tid).value for name in TLS_NAMES) for tid in threads]
    main = got[threads.index(stop.thread_id)]
    assert main[:2] == ("1", "1001")
    commands = [f"break {spec}", f"run {loaded}"]
    for number in range(1, 5):
        commands += [f"thread {number}", *[f"print {name}" for name in TLS_NAMES]]
    expected = gdb_thread_values(run_gdb(program, commands, env=gdb_env())[2:], 4)
    assert sorted(got) == sorted(expected)
    assert {values[0] for values in got} == {"1", "20", "30", "40"}


def test_thread_locals_in_the_library_own_frame_like_gdb(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    program, loaded = tls_programs(builder)
    line = marker_line(LIB_TLS, "lib_tls_set")
    launch(debugger, program, (str(loaded),), env=gdb_env())
    condition = debugger.expression_condition("v == 30")
    debugger.insert_location_breakpoint(f"lib_tls.c:{line}", condition=condition)
    debugger.resume()
    stop = events.wait_for(Stopped, timeout=30)
    names = ["lib_tls_value", "lib_tls_scaled", "lib_tls_name", "&lib_tls_value == &lib_tls_value"]
    got = [debugger.evaluate(name, stop.thread_id).value for name in names]
    commands = ["break main", f"run {loaded}", f"break lib_tls.c:{line} if v == 30", "continue"]
    replies = run_gdb(program, [*commands, *[f"print {n}" for n in names]], env=gdb_env())[4:]
    assert got == [printed_value(reply) for reply in replies]
    assert got[:2] == ["30", "300"]
