"""Dynamic printf judged in the program (patched_logs.py): the values go to a ring in the
patch's data area, the program does not stop, and the server prints each record as the
trap's path prints that hit (`set breakpoint jump-patches off`), in the same order per
thread, before the stop or exit that follows."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Output
from aliceserver.debuggers.ptrace import patched_logs
from aliceserver.debuggers.ptrace.patched_breakpoints import JumpPatches
from tests.support import batch
from tests.support.batch import ex
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = pytest.mark.timeout(180)
SOURCE = "dprintf_loop.c"
FORMAT = r'"i=%d square=%ld x=%#x c=%c id=%lu p=%p\n", i, square, i * 7, 65 + i % 26, id, i * 4096'
_LOGGED = re.compile(r"^i=.*$", re.M)


def _run(program: Path, patches: str, *commands: str) -> str:
    got = batch.ours(["-batch", "-nx", "-iex", f"set breakpoint jump-patches {patches}", *ex(
        f"dprintf {SOURCE}:{marker_line(SOURCE, 'log')},{FORMAT}", *commands,
    ), str(program)], program.parent)  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert "messages lost" not in got.stderr
    return got.stdout


def _before(text: str, line: str) -> list[str]:
    """The logged lines before `line` (which must be there)."""
    at = text.index(line)
    return _LOGGED.findall(text[:at])


def test_a_dprintf_in_a_loop_prints_what_its_trap_prints(builder: Builder) -> None:
    program = builder.build("dprintf_loop")
    done = f"break {SOURCE}:{marker_line(SOURCE, 'done')}"
    patched, trapped = (
        _run(program, patches, done, "run", "maint info breakpoints", "continue")
        for patches in ("on", "off")
    )
    assert "\tjump patch to 0x" in patched and "jump patch" not in trapped
    logged = _LOGGED.findall(trapped)
    assert len(logged) == 10000 and len(set(logged)) == 10000
    assert _LOGGED.findall(patched) == logged
    assert _before(patched, "Breakpoint 2, main") == logged  # every message before the stop
    assert "breakpoint already hit 10000 times" in patched  # `maint info`'s table counts them


def test_four_threads_log_in_order_per_thread(builder: Builder) -> None:
    program = builder.build("dprintf_loop")
    done = f"break {SOURCE}:{marker_line(SOURCE, 'done')}"
    patched, trapped = (
        _run(program, patches, done, "run 4", "maint info breakpoints", "continue")
        for patches in ("on", "off")
    )
    assert "\tjump patch to 0x" in patched
    exited = "exited normally]"

    def per_thread(text: str) -> dict[str, list[str]]:
        threads: dict[str, list[str]] = {}
        for line in _before(text, exited):
            threads.setdefault(line.split(" id=")[1].split()[0], []).append(line)
        return threads

    assert per_thread(patched) == per_thread(trapped)
    assert sorted(len(lines) for lines in per_thread(patched).values()) == [2500] * 4


def test_a_conditional_breakpoint_at_the_dprintf_keeps_the_trap_then_the_patch_comes(
    builder: Builder,
) -> None:
    program = builder.build("dprintf_loop")
    line = marker_line(SOURCE, "log")
    commands = (f"break {SOURCE}:{line} if i == 5000", f"break {SOURCE}:{marker_line(SOURCE, 'done')}",
                "run", "print i", "maint info breakpoints", "delete 2", "continue", "maint info breakpoints",
                "continue")  # fmt: skip
    patched, trapped = (_run(program, patches, *commands) for patches in ("on", "off"))
    assert "$1 = 5000" in patched and "$1 = 5000" in trapped
    shared, _, alone = patched.partition("Breakpoint 3, main")
    assert "jump patch" not in shared.partition("$1 = 5000")[2]  # both judged at the trap
    assert "\tjump patch to 0x" in alone  # the dprintf alone, once the breakpoint went
    assert _before(patched, "$1 = 5000") == _before(trapped, "$1 = 5000")
    assert _LOGGED.findall(patched) == _LOGGED.findall(trapped)
    assert len(_LOGGED.findall(patched)) == 10000


def _tiny_ring_run(
    debugger: Any, events: EventLog, program: Path, threads: str, patched: bool
) -> list[str]:
    """`i id` logged at every pass of dprintf_loop.c (`threads` of them): the console's
    lines, with a ring of 16 records when patched."""
    debugger.jump_patches.enabled = patched
    launch(debugger, program, [threads])
    [place] = debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, 'log')}")
    logpoint = debugger.breakpoint_condition(log_message="i={i} id={id}")
    done = debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, 'done')}")[0].address
    mark = events.mark()
    ids = [debugger.insert_breakpoint(int(place.address), condition=logpoint).id,
           debugger.insert_breakpoint(done).id]  # fmt: skip
    # 10,000 trapped passes: about a second on a quiet machine, far longer on a loaded one
    assert continue_to_stop(debugger, events, timeout=120).address == done
    assert (place.address in debugger.jump_patches.sites) == patched
    for ident in ids:  # (breakpoints outlive the process)
        debugger.remove_breakpoint(ident)
    assert continue_to_exit(debugger, events).code == 0
    said = events.since(mark, Output)
    assert [e.text for e in said if e.category == "warning"] == []  # no loss to warn of
    return "".join(e.text for e in said if e.category == "console").splitlines()


@pytest.mark.parametrize("threads", ["0", "4"])
def test_a_full_ring_makes_the_thread_wait_and_loses_nothing(
    debugger: Any, events: EventLog, builder: Builder, monkeypatch: pytest.MonkeyPatch, threads: str
) -> None:
    monkeypatch.setattr(JumpPatches, "log_ring_records", 16)
    program = builder.build("dprintf_loop")
    trapped = _tiny_ring_run(debugger, events, program, threads, patched=False)
    patched = _tiny_ring_run(debugger, events, program, threads, patched=True)
    assert len(patched) == len(set(patched)) == 10000
    if threads == "0":
        assert patched == trapped == [f"i={i} id=-1" for i in range(10000)]
    else:  # each thread's messages in its order (the threads' interleaving is the kernel's)
        assert sorted(patched) == sorted(trapped)
        for k in range(4):
            assert [line for line in patched if line.endswith(f" id={k}")] == [
                f"i={i} id={k}" for i in range(2500)
            ]


def _dap_logpoint_run(debugger: Any, events: EventLog, program: Path, patched: bool) -> list[str]:
    """A DAP logMessage over the 1,000 passes of patch_sites.c's loop: the console lines
    before the next stop (and whether a patch stood for the logpoint there)."""
    debugger.jump_patches.enabled = patched
    launch(debugger, program)
    places = [debugger.resolve_location(f"patch_sites.c:{marker_line('patch_sites.c', name)}")[0].address
              for name in ("loop", "visit")]  # fmt: skip
    gate = debugger.breakpoint_condition(log_message="pass {i}: sink={sink} {{i}}")
    ids = [debugger.insert_breakpoint(places[0], condition=gate).id,
           debugger.insert_breakpoint(places[1]).id]  # fmt: skip
    mark = events.mark()
    stop = continue_to_stop(debugger, events)
    assert stop.address == places[1]
    assert (places[0] in debugger.jump_patches.sites) == patched
    said = [e.text for e in events.since(mark, Output) if e.category == "console"]
    for ident in ids:
        debugger.remove_breakpoint(ident)
    assert continue_to_exit(debugger, events).code == 0
    return said


def test_a_dap_logpoint_prints_what_its_trap_prints(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    program = builder.build("patch_sites")
    trapped = _dap_logpoint_run(debugger, events, program, patched=False)
    assert (
        len(trapped) == 1000
        and trapped[5].startswith("pass 5: sink=")
        and trapped[5].endswith(" {i}\n")
    )
    assert _dap_logpoint_run(debugger, events, program, patched=True) == trapped


def test_a_ring_shrinks_to_fit_a_small_data_area(
    debugger: Any, events: EventLog, builder: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(patched_logs, "DATA_SIZE", 3 * 1024 * 1024)  # less than a full ring
    launch(debugger, builder.build("dprintf_loop"))
    square, log, done = (
        int(debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, name)}")[0].address)
        for name in ("square", "log", "done")
    )
    for name, place in (("a", square), ("b", log)):
        logpoint = debugger.breakpoint_condition(log_message=name + " {i}")
        debugger.insert_breakpoint(place, condition=logpoint)
    stop_there = debugger.insert_breakpoint(done).id
    mark = events.mark()
    assert continue_to_stop(debugger, events).address == done
    assert square in debugger.jump_patches.sites and log in debugger.jump_patches.sites
    said = [e.text for e in events.since(mark, Output) if e.category == "console"]
    passes = [f"{i}\n" for i in range(10000)]
    assert [t[2:] for t in said if t.startswith("a ")] == passes
    assert [t[2:] for t in said if t.startswith("b ")] == passes
    debugger.remove_breakpoint(stop_there)
    assert continue_to_exit(debugger, events).code == 0


def test_two_dprintfs_in_one_loop_print_in_the_programs_order(builder: Builder) -> None:
    program = builder.build("dprintf_loop")
    commands = (f'dprintf {SOURCE}:{marker_line(SOURCE, "square")},"before %d\\n", i',
                f"break {SOURCE}:{marker_line(SOURCE, 'done')}", "run", "maint info breakpoints", "continue")  # fmt: skip
    patched, trapped = (_run(program, patches, *commands) for patches in ("on", "off"))
    assert patched.count("\tjump patch to 0x") == 2
    interleaved = re.compile(r"^(?:before|i=).*$", re.M)
    assert interleaved.findall(patched) == interleaved.findall(trapped)
    assert len(interleaved.findall(patched)) == 20000
