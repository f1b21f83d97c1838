"""Conditions analysed from real DWARF (compiled.py's IR at a loop body's pc), run as
machine code (codegen.py) inside a trampoline in the program, agree with the truth table
that test_compiled_conditions checks against the general evaluator.

The engine compiles each condition at the first hit of ordinary conditional breakpoints;
the test catches the frame it compiles for, turns every condition into one logpoint value,
then puts a trampoline at the body (its first instructions must be position-independent:
no relocation here) and reads one record per iteration from the ring.
"""

from __future__ import annotations

import struct
from typing import Any

import capstone
import pytest

from aliceserver.debuggers.events import StopReason
from aliceserver.debuggers.ptrace.patches.codegen import compile_code
from aliceserver.debuggers.ptrace.patches.trampoline import (
    SAVED,
    Logpoint,
    RingBuffer,
    build_trampoline,
    drain_ring,
)
from aliceserver.debuggers.symbols.dwarf.expr.ast import Expr
from aliceserver.debuggers.symbols.dwarf.expr.compiled import (
    PcFrame,
    analyse_value,
    compile_condition,
)
from tests.integration.test_compiled_conditions import COMPILED, SOURCE
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = pytest.mark.timeout(120)

ITERATIONS = 10
BELOW_PROGRAM = 0x10000000  # the page is mapped this far below the site: within a jmp's reach


def displaced_span(code: bytes, address: int) -> int:
    """Whole instructions covering 5 bytes, none reading rip or branching."""
    decoder = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    decoder.detail = True
    size = 0
    for insn in decoder.disasm(code, address):
        branches = any(
            insn.group(g) for g in (capstone.CS_GRP_JUMP, capstone.CS_GRP_CALL, capstone.CS_GRP_RET)
        )
        assert "rip" not in insn.op_str and not branches, f"needs relocation: {insn}"
        size += int(insn.size)
        if size >= 5:
            return size
    raise AssertionError("no span")


def test_machine_code_conditions_follow_the_truth_table(
    debugger: Any, events: EventLog, builder: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    caught: dict[int, tuple[Expr, PcFrame]] = {}

    def spy(tree: Expr, frame: PcFrame) -> Any:
        caught[id(tree)] = (tree, frame)
        return compile_condition(tree, frame)

    monkeypatch.setattr("aliceserver.debuggers.ptrace.conditions.compile_condition", spy)
    launch(debugger, builder.build("cond_types"))
    [body] = debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, 'body')}")
    [after] = debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, 'after')}")
    texts = ["i", *COMPILED]
    checks = [debugger.expression_condition(text) for text in texts]
    ids = [debugger.insert_breakpoint(body.address, condition=check).id for check in checks]
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)  # i == 0: some hold
    assert stop.address == body.address
    for ident in ids:
        debugger.remove_breakpoint(ident)
    frames = [caught[id(check._tree)] for check in checks]
    values = [analyse_value(tree, frame) for tree, frame in frames]
    assert None not in values, "each condition is analysed to IR"
    codes = [compile_code(node, SAVED.offsets) for node in values if node is not None]

    site = body.address
    hint = (site & ~0xFFFF) - BELOW_PROGRAM
    page = int(
        debugger.evaluate(f"(long) mmap({hint}, 65536, 7, 0x22, -1, 0)", stop.thread_id).value, 0
    )
    assert abs(page - site) < 1 << 31, f"the page at {page:#x} is out of a jmp's reach"
    span = displaced_span(debugger.read_memory(site, 32), site)
    ring = RingBuffer(page + 0x8000, capacity=16, values=len(codes))
    trampoline = build_trampoline(
        address=page, span_end=site + span, displaced=debugger.read_memory(site, span), condition=None,
        hit_counter=page + 0x7000, ignore_count=page + 0x7008,
        logpoint=Logpoint(patch_id=1, values=codes, ring=ring),
    )  # fmt: skip
    debugger.write_memory(page, trampoline.code)
    debugger.write_memory(site, b"\xe9" + struct.pack("<i", page - (site + 5)))
    debugger.insert_breakpoint(after.address)
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)

    size = ring.RECORDS + ring.capacity * ring.record_size
    records = drain_ring(
        ring, memoryview(bytearray(debugger.read_memory(ring.address, size))), len(codes)
    )
    assert [record.values[0] for record in records] == list(range(ITERATIONS))
    for text, holds, column in zip(COMPILED, COMPILED.values(), range(1, len(codes)), strict=True):
        seen = [i for i, record in enumerate(records) if record.values[column] != 0]
        assert seen == [i for i in range(ITERATIONS) if holds(i)], text
    assert continue_to_exit(debugger, events).code == 0
