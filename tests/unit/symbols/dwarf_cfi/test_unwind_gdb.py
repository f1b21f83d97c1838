"""unwind_stack on real stopped programs, frame by frame against gdb's backtrace."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from aliceserver.debuggers.symbols.dwarf.cfi import CfiTable, UnwoundFrame
from aliceserver.debuggers.symbols.fpunwind import fp_backtrace
from aliceserver.debuggers.symbols.process import ProcessSymbols
from tests.unit.symbols.dwarf_cfi.oracle import GdbFrame, Session, gdb_snapshots

pytestmark = pytest.mark.timeout(120)

O2_NOFP = ("-O2", "-fomit-frame-pointer", "-g")
O0 = ("-O0", "-g")

# (flags, argv, gdb location, instruction steps after the stop, names some frame 0 or
# some stack must show: proof that the scenario reaches what it is named after)
SCENARIOS = {
    "chain-O2-omit-frame-pointer": (O2_NOFP, ["chain"], "leaf", 0, {"chain1", "_start"}),
    "chain-O0": (O0, ["chain"], "leaf", 0, {"chain8", "main"}),
    "recursion-20": (O2_NOFP, ["recurse"], "leaf", 0, {"recurse"}),
    "qsort-callback-through-libc": (O2_NOFP, ["qsort"], "leaf", 0, {"compare", "qsort_r"}),
    "signal-handler-raise": (O2_NOFP, ["signal"], "leaf", 0, {"__restore_rt", "interrupted"}),
    "signal-handler-segv": (O0, ["segv"], "leaf", 0, {"__restore_rt", "crash"}),
    "thread-outermost-clone3": (O2_NOFP, ["thread"], "leaf", 0, {"thread_main", "chain1"}),
    "first-instruction-O0": (O0, ["chain"], "*leaf", 0, {"chain8"}),
    "first-instruction-O2": (O2_NOFP, ["chain"], "*chain4", 0, {"chain3"}),
    "debug-frame-only": (
        O2_NOFP + ("-fno-asynchronous-unwind-tables",),
        ["chain"],
        "leaf",
        0,
        {"chain1"},
    ),
    # Into puts@plt (a CFA expression), the lazy-binding PLT0 and ld.so's resolver.
    "plt-stub-steps": (O0, ["puts"], "call_puts", 24, {"puts@plt", "call_puts"}),
    "prologue-and-epilogue-steps": (O0, ["chain"], "*chain8", 16, {"leaf", "chain7"}),
}


def describe(expected: list[GdbFrame], frames: list[UnwoundFrame]) -> str:
    lines = ["gdb:"] + [f"  {g.pc:#x} {g.name} {g.kind}" for g in expected]
    lines += ["ours:"] + [
        f"  {f.pc:#x} {f.symbol.name} {f.method} cfa={f.cfa and hex(f.cfa)}"
        f"{' sigtramp' if f.signal_trampoline else ''}"
        for f in frames
    ]
    return "\n".join(lines)


def names_agree(theirs: str | None, frame: UnwoundFrame, symbols: ProcessSymbols) -> bool:
    ours = frame.symbol.name
    if theirs is None or theirs == ours:
        return True
    image = symbols.image_of(frame.symbol.module) if frame.symbol.module else None
    if image is None:
        return False
    symbol = image.find_symbol(theirs)
    if symbol is None:
        return True  # gdb named it from debug info; the ELF symbol tables lack the name
    module = next(m for m in symbols.modules() if m.path == frame.symbol.module)
    ours_address = frame.symbol.address - frame.symbol.offset
    return symbol.address + module.base == ours_address  # an alias of the same function


def assert_same_stack(
    expected: list[GdbFrame], frames: list[UnwoundFrame], symbols: ProcessSymbols
) -> None:
    text = describe(expected, frames)
    assert [f.pc for f in frames] == [g.pc for g in expected], text
    for g, f in zip(expected, frames, strict=True):
        assert f.signal_trampoline == (g.kind == "sigtramp"), text
        assert names_agree(g.name, f, symbols), text
    levels = [f.level for f in frames]
    assert levels == list(range(len(frames)))
    assert frames[0].method == "first"


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_backtrace_matches_gdb(
    scenario: str, gdb_path: str, build_program: Any, session: Session
) -> None:
    flags, args, location, steps, must_see = SCENARIOS[scenario]
    program = build_program(*flags)
    snapshots = gdb_snapshots(program, args, location, steps)
    session.launch(program, args)
    session.run_to(snapshots[0][0].pc)
    symbols = session.dbg._symbols
    seen: set[str | None] = set()
    for index, expected in enumerate(snapshots):
        if index:
            session.step()
        got = session.unwind()
        assert got.registers["rip"] == expected[0].pc, f"step {index}"
        assert_same_stack(expected, got.frames, symbols)
        assert all(f.method != "frame-pointer" for f in got.frames), describe(expected, got.frames)
        seen.update(f.symbol.name for f in got.frames)
    assert must_see <= seen, seen


def test_frame_pointers_fail_where_cfi_succeeds(build_program: Any, session: Session) -> None:
    """The -O2 -fomit-frame-pointer chain defeats fp_backtrace; CFI gets every frame."""
    program = build_program(*O2_NOFP)
    session.launch(program, ["chain"])
    session.run_to(session.dbg.lookup_symbol("leaf"))
    got = session.unwind()
    names = [f.symbol.name for f in got.frames]
    chain = ["leaf", "chain8", "chain7", "chain6", "chain5", "chain4", "chain3", "chain2"]
    assert names[: len(chain) + 2] == [*chain, "chain1", "main"]
    regs = got.registers
    fp = fp_backtrace(
        session.dbg.read_memory,
        regs["rip"],
        regs["rsp"],
        regs["rbp"],
        session.dbg._symbols.lookup_address,
    )
    assert [f.symbol.name for f in fp][: len(chain)] != chain


def test_signal_frame_restores_interrupted_registers(build_program: Any, session: Session) -> None:
    """The frame a signal interrupted gets its registers from the kernel's ucontext: all of
    them, caller-clobbered ones included, and its pc is exact (no -1 for the lookup)."""
    program = build_program(*O0)
    session.launch(program, ["segv"])
    session.run_to(session.dbg.lookup_symbol("leaf"))
    frames = session.unwind().frames
    index = next(i for i, f in enumerate(frames) if f.signal_trampoline)
    interrupted = frames[index + 1]
    assert interrupted.method == "signal"
    assert interrupted.symbol.name == "crash"
    assert {"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r11"} <= set(interrupted.registers)
    assert frames[index].symbol.name == "__restore_rt"
    # Frames found through ordinary CFI know no caller-clobbered registers.
    assert "rax" not in frames[index + 2].registers
    assert frames[-1].symbol.name == "_start"


def test_debug_frame_only_binary_has_no_eh_frame_for_its_functions(
    build_program: Any, session: Session
) -> None:
    program = build_program(*O2_NOFP, "-fno-asynchronous-unwind-tables")
    out = subprocess.run(
        ["readelf", "-S", "-W", str(program)], capture_output=True, text=True, check=True
    ).stdout
    assert ".debug_frame" in out
    session.launch(program, ["chain"])
    leaf = session.dbg.lookup_symbol("leaf")
    module = session.dbg._symbols.module_at(leaf)
    table = session.tables(module)
    assert isinstance(table, CfiTable)
    assert table.section_of(leaf - module.base) == ".debug_frame"
    assert table.row_at(leaf - module.base) is not None


def test_limit_and_repeated_unwinds(build_program: Any, session: Session) -> None:
    program = build_program(*O2_NOFP)
    session.launch(program, ["recurse"])
    session.run_to(session.dbg.lookup_symbol("leaf"))
    assert len(session.unwind(limit=5).frames) == 5
    assert session.unwind(limit=0).frames == []
    registers = session.registers()
    from aliceserver.debuggers.symbols.dwarf.cfi import CfiTables, unwind_stack

    tables = CfiTables(session.dbg._symbols)
    # The first unwind loads the tables, the next ones use them: the same frames each time.
    unwinds = [
        unwind_stack(registers, session.dbg.read_memory, session.dbg._symbols, tables)
        for _ in range(3)
    ]
    frames = unwinds[0]
    assert unwinds[1] == frames and unwinds[2] == frames
    # leaf (tail-called by recurse(0)), recurse(1..20), main, two libc frames, _start
    assert [f.symbol.name for f in frames].count("recurse") == 20
    assert len(frames) == 25
