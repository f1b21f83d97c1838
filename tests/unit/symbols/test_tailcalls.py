"""gdb's handling of several tail-call paths between a caller and its callee
(chain_candidate) and the virtual frames made of what they share (pretend_pc)."""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.tailcalls import TailChain, _intersect


def test_one_path_gives_a_frame_per_tail_call_the_callee_side_first() -> None:
    chain = _intersect(None, [0x10, 0x20, 0x30])
    assert chain == TailChain((0x10, 0x20, 0x30), 3, 3)
    assert chain.frames() == (0x30, 0x20, 0x10)


def test_paths_keep_what_they_share_at_each_end() -> None:
    chain = _intersect(_intersect(None, [0x10, 0x20, 0x30, 0x40]), [0x10, 0x50, 0x40])
    assert chain == TailChain((0x10, 0x20, 0x30, 0x40), 1, 1)
    assert chain.frames() == (0x40, 0x10)  # the callee's caller, then the caller's callee
    only_callee_end = _intersect(_intersect(None, [0x10, 0x20, 0x40]), [0x30, 0x40])
    assert only_callee_end == TailChain((0x10, 0x20, 0x40), 0, 1)
    assert only_callee_end.frames() == (0x40,)


def test_paths_sharing_nothing_give_no_chain() -> None:
    assert _intersect(_intersect(None, [0x10, 0x20]), [0x30]) is None
    assert _intersect(_intersect(None, []), [0x30]) is None  # a direct call, and a tail path too
