"""Conditional breakpoints judged in the program by jump patches (patched_breakpoints.py),
each scenario run with `set breakpoint jump-patches` on and off: the same stops, values and
hit counts either way; with patches, the program's code shows its own bytes to every read,
and disabling or deleting puts the ELF file's bytes back exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from elftools.elf.elffile import ELFFile

from aliceserver.debuggers.events import Output, StopReason
from aliceserver.debuggers.model import ForkFollow, LaunchConfig, StdioMode
from tests.support import batch
from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.dap_schema import require_schema
from tests.support.dap_session import alice_session, launch_arguments, start_session
from tests.support.events import EventLog
from tests.support.jump_patches import jump_patches as jump_patches  # the fixture
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import List, Tuple, parse_record
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("jump_patches")]
SOURCE = "patch_sites.c"


def place(debugger: Any, marker: str) -> int:
    [found] = debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, marker)}")
    return int(found.address)


def stop_line(debugger: Any, address: int) -> int:
    return int(debugger.source_position(address).line)


def hits(debugger: Any, ident: int) -> int:
    return int(next(b.hit_count for b in debugger.breakpoints() if b.id == ident))


def file_bytes(debugger: Any, address: int, size: int) -> bytes:
    """The program file's bytes for a runtime address of its code."""
    main = next(m for m in debugger.modules() if m.is_main)
    wanted = address - main.base
    with open(main.path, "rb") as f:
        elf = ELFFile(f)
        for segment in elf.iter_segments("PT_LOAD"):
            start = segment["p_vaddr"]
            if start <= wanted < start + segment["p_filesz"]:
                f.seek(segment["p_offset"] + wanted - start)
                return f.read(size)
    raise AssertionError(f"{address:#x} is in no loaded segment")


def raw_bytes(debugger: Any, address: int, size: int) -> bytes:
    """What the program's memory holds, no debugger masking."""
    with open(f"/proc/{debugger.process.pid}/mem", "rb") as mem:
        mem.seek(address)
        return mem.read(size)


def test_a_condition_reading_a_bad_pointer_stops_with_the_evaluators_error(
    debugger: Any, events: EventLog, builder: Builder, jump_patches: str
) -> None:
    launch(debugger, builder.build("patch_sites"))
    site = place(debugger, "loop")
    ident = debugger.insert_breakpoint(
        site, condition=debugger.expression_condition("it->value == 8")
    ).id
    mark = events.mark()
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.address == site and stop.breakpoint_ids == (ident,)
    assert debugger.evaluate("i", stop.thread_id).value == "600"
    said = "".join(e.text for e in events.since(mark, Output))
    assert "Error in testing breakpoint condition:\nCannot access memory at address 0x0\n" in said
    assert hits(debugger, ident) == 601
    if jump_patches == "on":  # the patch judged i = 1..599 and faulted at 600: a trap now
        assert "faulted" in (debugger.jump_patches.refusal(site) or "")
    assert raw_bytes(debugger, site, 8) == b"\xcc" + file_bytes(debugger, site, 8)[1:]  # the trap's
    assert continue_to_exit(debugger, events).code == 0
    assert hits(debugger, ident) == 1000


def test_four_threads_through_one_patched_site(
    debugger: Any, events: EventLog, builder: Builder, jump_patches: str
) -> None:
    launch(debugger, builder.build("patch_sites"))
    site = place(debugger, "spin")
    ident = debugger.insert_breakpoint(
        site, condition=debugger.expression_condition("id == 2 && n == 1500")
    ).id
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.address == site and stop.breakpoint_ids == (ident,)
    assert (
        debugger.evaluate("id", stop.thread_id).value,
        debugger.evaluate("n", stop.thread_id).value,
    ) == (
        "2",
        "1500",
    )
    assert int(debugger.read_registers(stop.thread_id).values["rip"]) == site
    assert (site in debugger.jump_patches.sites) == (jump_patches == "on")
    assert continue_to_exit(debugger, events).code == 0
    assert hits(debugger, ident) == 4 * 2000  # every arrival, as a trap counts them


def test_a_fork_child_runs_the_original_code(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    # The condition holds in the child only: a patch left in it would stop it at a trap
    # nobody traces (SIGTRAP kills it) and the parent would exit 3.
    launch(debugger, builder.build("patch_sites"))
    visit = place(debugger, "visit")
    ident = debugger.insert_breakpoint(
        visit, condition=debugger.expression_condition("in_child == 1")
    ).id
    assert continue_to_exit(debugger, events, timeout=30).code == 0
    assert hits(debugger, ident) == 3


def test_a_followed_fork_child_keeps_the_patches(
    debugger: Any, events: EventLog, builder: Builder, jump_patches: str
) -> None:
    program = builder.build("patch_sites")
    config = LaunchConfig(str(program), stdio=StdioMode.PIPES, follow_fork=ForkFollow.CHILD)
    parent = debugger.launch(config).pid
    visit = place(debugger, "visit")
    ident = debugger.insert_breakpoint(
        visit, condition=debugger.expression_condition("in_child == 1 && round == 1")
    ).id
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT, timeout=30)
    assert debugger.process.pid != parent and stop.breakpoint_ids == (ident,)
    assert debugger.evaluate("round", stop.thread_id).value == "1"
    assert (visit in debugger.jump_patches.sites) == (jump_patches == "on")  # its copy
    assert continue_to_exit(debugger, events, timeout=30).code == 0


def test_after_an_exec_the_new_image_is_patched_afresh(
    debugger: Any, events: EventLog, builder: Builder, jump_patches: str
) -> None:
    target = builder.build("patch_sites")
    launch(debugger, builder.build("exec"), [str(target)])
    before = debugger.insert_location_breakpoint(
        f"exec.c:{marker_line('exec.c', 'before_exec')}",
        condition=debugger.expression_condition("1 == 2"),
    )
    loop = debugger.insert_location_breakpoint(
        f"{SOURCE}:{marker_line(SOURCE, 'loop')}",
        condition=debugger.expression_condition("i == 700"),
    )
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT, timeout=30)
    assert stop.address is not None
    assert stop_line(debugger, stop.address) == marker_line(SOURCE, "loop")
    assert debugger.evaluate("i", stop.thread_id).value == "700"
    assert (stop.address in debugger.jump_patches.sites) == (jump_patches == "on")
    debugger.remove_location_breakpoint(before.id)
    debugger.remove_location_breakpoint(loop.id)
    assert continue_to_exit(debugger, events, timeout=30).code == 0


def test_reads_show_the_program_and_removal_restores_the_file_bytes(
    debugger: Any, events: EventLog, builder: Builder, jump_patches: str
) -> None:
    launch(debugger, builder.build("patch_sites"))
    loop, visit = place(debugger, "loop"), place(debugger, "visit")
    ident = debugger.insert_breakpoint(
        loop, condition=debugger.expression_condition("i == 5000")
    ).id
    debugger.insert_breakpoint(visit)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.address is not None
    assert stop_line(debugger, stop.address) == marker_line(SOURCE, "visit")
    original = file_bytes(debugger, loop, 16)
    assert debugger.read_memory(loop, 16) == original
    shown = debugger.disassemble(loop, 3)  # the program's instructions, not a jmp
    assert b"".join(i.raw for i in shown) == original[: sum(i.size for i in shown)]
    patched = raw_bytes(debugger, loop, 16)
    assert (patched[0] == 0xE9) == (jump_patches == "on")
    debugger.enable_breakpoint(ident, False)
    assert raw_bytes(debugger, loop, 16) == original
    debugger.enable_breakpoint(ident, True)
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)  # the next visit
    assert debugger.read_memory(loop, 16) == original
    assert (raw_bytes(debugger, loop, 16)[0] == 0xE9) == (jump_patches == "on")
    debugger.remove_breakpoint(ident)
    assert raw_bytes(debugger, loop, 16) == original
    assert hits(debugger, 2) == 2


@needs_gdb
def test_ignore_counts_and_hit_counts_like_gdb(builder: Builder) -> None:
    # Ignore counts with a condition, changed while stopped, then alone (no condition).
    program = builder.build("patch_sites")
    line = marker_line(SOURCE, "loop")
    got = assert_like_gdb(ex(
        f"break {SOURCE}:{line} if i % 100 == 0", "ignore 1 3", "run", "print i", "info breakpoints",
        "ignore 1 2", "continue", "print i", "condition 1", "ignore 1 50", "continue", "print i",
        "info breakpoints",
    ) + [str(program)], Path(program).parent)  # fmt: skip
    assert "$1 = 300" in got.stdout and "$2 = 600" in got.stdout and "$3 = 651" in got.stdout
    assert "breakpoint already hit 58 times" in got.stdout


def _mi_break_after(program: Path, *, gdb: bool) -> tuple[str, str, str]:
    """-break-after on an unconditional breakpoint: where it stops, and -break-info's times."""
    client = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    try:
        client.prompt()
        client.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'visit')}")
        client.ok("-break-after 1 2")
        client.command("-exec-run")
        stop = client.stopped()
        value = client.ok("-data-evaluate-expression round").results["value"]
        table = client.ok("-break-info 1").results["BreakpointTable"]
        assert isinstance(table, Tuple)
        body = table["body"]
        assert isinstance(body, List)
        row = body.values[0]
        assert isinstance(row, Tuple)
        return str(stop.results["reason"]), str(value), str(row["times"])
    finally:
        client.close()


@needs_gdb
def test_mi_break_after_like_gdb(builder: Builder) -> None:
    program = Path(builder.build("patch_sites"))
    assert (
        _mi_break_after(program, gdb=False)
        == _mi_break_after(program, gdb=True)
        == ("breakpoint-hit", "2", "3")
    )


def test_an_ignore_count_over_four_threads(builder: Builder, jump_patches: str) -> None:
    # Each thread's n == 1000 holds once: the third of them stops, whichever thread it is.
    program = builder.build("patch_sites")
    spin = marker_line(SOURCE, "spin")
    got = batch.ours(["-batch", "-nx", *ex(
        f"break {SOURCE}:{spin} if n == 1000", "ignore 1 2", "run", "print n", "info breakpoints",
        "maint info breakpoints",
    ), str(program)], Path(program).parent)  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert "$1 = 1000" in got.stdout and "breakpoint already hit 3 times" in got.stdout
    assert ("\tjump patch to 0x" in got.stdout) == (jump_patches == "on")


def test_maint_info_breakpoints_says_what_each_breakpoint_became(
    builder: Builder, jump_patches: str
) -> None:
    program = builder.build("patch_sites")
    loop, spin, visit = (marker_line(SOURCE, name) for name in ("loop", "spin", "visit"))
    got = batch.ours(["-batch", "-nx", *ex(
        f"break {SOURCE}:{loop} if i == 500", f"break {SOURCE}:{spin} if id == 1 && n == 7",
        f"break {SOURCE}:{spin} if id == 2 && n == 9", f"break {SOURCE}:{visit} if (double) round > 1.5",
        "run", "continue", "continue", "continue", "print round", "maint info breakpoints", "info breakpoints",
    ), str(program)], Path(program).parent)  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert "$1 = 2" in got.stdout
    maint, _, info = got.stdout.partition("Num ")[2].partition("Num ")
    on = jump_patches == "on"
    assert maint.count("\tjump patch to 0x") == (3 if on else 0)  # two share the spin line's
    refused = "\tpatch refused: the condition is not compiled to machine code here\n"
    assert maint.count(refused) == (1 if on else 0)
    assert "jump patch" not in info and "patch refused" not in info  # gdb's table, as gdb's


@pytest.mark.parametrize(
    ("hit_condition", "stops"),
    [
        ("% 250", [249, 499, 749, 999]),
        (">= 998", [997, 998, 999]),
        ("10", [9]),
        ("> 998", [998, 999]),
    ],
)
def test_dap_hit_conditions_stop_at_the_same_hits(
    debugger: Any, events: EventLog, builder: Builder, hit_condition: str, stops: list[int]
) -> None:
    launch(debugger, builder.build("patch_sites"))
    site = place(debugger, "loop")
    gate = debugger.breakpoint_condition(hit_condition=hit_condition)
    ident = debugger.insert_breakpoint(site, condition=gate).id
    seen = []
    for _ in stops:
        stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        assert stop.breakpoint_ids == (ident,)
        seen.append(int(debugger.evaluate("i", stop.thread_id).value))
    assert seen == stops
    assert continue_to_exit(debugger, events).code == 0
    assert hits(debugger, ident) == 1000


def test_dap_tells_why_a_breakpoint_keeps_its_trap(
    tmp_path: Path, builder: Builder, jump_patches: str
) -> None:
    if jump_patches == "off":
        pytest.skip("the DAP server starts with its own default: jump patches on")
    require_schema()
    program = builder.build("patch_sites")
    source = str(builder.source("patch_sites"))
    loop, visit = marker_line(source, "loop"), marker_line(source, "visit")
    with alice_session(stderr=tmp_path / "adapter.log") as dap:
        launch = launch_arguments(program, stop_on_entry=True)
        session = start_session(dap, program, launch=launch)
        wanted = [{"line": visit}, {"line": loop, "condition": "(double) i > 1e9"},
                  {"line": loop + 100}]  # fmt: skip
        answer = dap.call("setBreakpoints", {"source": {"path": source}, "breakpoints": wanted})
        assert "message" not in answer["breakpoints"][1]  # nothing known yet
        thread = session.thread_id
        dap.continue_(thread)  # at visit: the loop ran, its condition compiled (not to code)
        dap.continue_(thread)  # the next visit: the continue between found no patch for it
        answer = dap.call("setBreakpoints", {"source": {"path": source}, "breakpoints": wanted})
        assert answer["breakpoints"][1]["verified"] is True
        message = answer["breakpoints"][1]["message"]
        assert message.startswith("patch refused: "), message
        assert "No code" in answer["breakpoints"][2]["message"]


@needs_gdb
def test_a_library_unloaded_and_loaded_again_is_patched_afresh_like_gdb(builder: Builder) -> None:
    library = builder.build("lib_plugin", extra=["-shared", "-fPIC"])
    program = builder.build("patch_reload", extra=["-ldl"])
    line = marker_line("lib_plugin.c", "plugin")
    args = ["-batch", "-nx", *ex(
        "set breakpoint pending on", f"break lib_plugin.c:{line} if x == 1030", "run", "print x",
        "info breakpoints",
    ), "--args", str(program), str(library)]  # fmt: skip

    def stops(output: str) -> list[str]:
        kept = ("Breakpoint 1, ", "$1 = ", "\tbreakpoint already hit", "[Inferior 1")
        return [line for line in output.splitlines() if line.startswith(kept)]

    got = batch.ours(args, Path(program).parent)
    assert stops(got.stdout) == stops(batch.theirs(args, Path(program).parent).stdout)
    assert "$1 = 1030" in got.stdout and got.returncode == 0


def _ignored_hits_told(program: Path, *, gdb: bool) -> list[list[tuple[str, str]]]:
    """-break-after on a loop's breakpoint, twice: each continue's =breakpoint-modified
    (times, ignore) in order, up to its *stopped."""
    client = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    told = []
    try:
        client.prompt()
        client.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'loop')}")
        client.command("-exec-run")
        client.stopped()
        for count in (3, 2):
            client.ok(f"-break-after 1 {count}")
            client.ok("-exec-continue")
            lines = client.read_until(lambda line: line.startswith("*stopped"))
            rows = [parse_record(line).results["bkpt"] for line in lines if line.startswith("=breakpoint-modified")]
            told.append([(str(row["times"]), str(row.get("ignore") or "-")) for row in rows if isinstance(row, Tuple)])
        return told
    finally:
        client.close()


@needs_gdb
def test_mi_each_ignored_hit_is_told_like_gdb(builder: Builder) -> None:
    # gdb notifies at every hit an ignore count lets go, with that hit's count and what is
    # left of the ignore count; with jump patches the trampoline lets them go, told at the stop.
    program = Path(builder.build("patch_sites"))
    assert (
        _ignored_hits_told(program, gdb=False)
        == _ignored_hits_told(program, gdb=True)
        == [[("2", "2"), ("3", "1"), ("4", "-"), ("5", "-")], [("6", "1"), ("7", "-"), ("8", "-")]]
    )
