"""Where a jump patch may go: the whole instructions it displaces, or why it may not.

A `jmp rel32` takes 5 bytes; the instructions covering them from the site are the span.
Nothing may land strictly inside the span once the jump is there, so a site is refused
when a direct branch of its function (its cold parts included, when the caller gives them)
or a landing point the caller knows (an exception handler) is inside it, when the function has
indirect jumps (a jump table may target anything) and the span is more than one
instruction, when a call in it is not its last instruction (the callee returns inside
the span), when the span runs past the end of the function or past a ret, jmp or ud2
(what follows may be padding, data or another entry), or when an instruction of
it cannot run elsewhere (relocate.py says why). Pure: it reads only the bytes given.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Final

from aliceserver.debuggers.ptrace.patches.install import JUMP_SIZE

_NO_FALL_THROUGH: Final = frozenset({"jmp", "ud2", "hlt", "int3", "ud1", "ud0"})


@dataclass(frozen=True, slots=True)
class SiteInstruction:
    address: int
    size: int
    text: str  # "mov rax, qword ptr [rip + 0x2e3a]", for messages and logs


@dataclass(frozen=True, slots=True)
class SitePlan:
    """The span a patch at `address` replaces: `original` is its bytes as the program has
    them without any debugger change (whole instructions, at least 5 bytes)."""

    address: int
    original: bytes
    instructions: tuple[SiteInstruction, ...] = ()

    @property
    def end(self) -> int:
        return self.address + len(self.original)

    def relocated(self, new_address: int) -> bytes:
        """The displaced instructions re-encoded to run at `new_address` (relocate.py),
        without the jump back to `end`; Unrelocatable when they cannot."""
        from aliceserver.debuggers.ptrace.patches.relocate import relocate

        return bytes(relocate(self.original, self.address, new_address))


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why no patch can go there, in words for the user."""

    reason: str


@dataclass(frozen=True, slots=True)
class _Decoded:
    address: int
    size: int
    text: str
    direct_target: int | None  # a jmp, jcc, call, loop... with an immediate target
    indirect_jump: bool
    call: bool
    falls_through: bool  # the next instruction runs after it (no ret, jmp, ud2, hlt)


def _decode(code: bytes, start: int) -> list[_Decoded]:
    # Imported here: capstone costs 7 MB and 60 ms, and most sessions plan no patch.
    import capstone  # type: ignore[import-untyped, unused-ignore]

    cs = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    cs.detail = True
    return [_classify(insn) for insn in cs.disasm(code, start)]


def _classify(insn: Any) -> _Decoded:
    import capstone  # type: ignore[import-untyped, unused-ignore]
    from capstone import x86  # type: ignore[import-untyped, unused-ignore]

    jump = insn.group(capstone.CS_GRP_JUMP)
    call = insn.group(capstone.CS_GRP_CALL)
    target: int | None = None
    indirect = False
    if jump or call:
        operands = insn.operands
        if len(operands) == 1 and operands[0].type == x86.X86_OP_IMM:
            target = operands[0].imm & ((1 << 64) - 1)
        elif jump:
            indirect = True
    text = f"{insn.mnemonic} {insn.op_str}".strip()
    ends = insn.group(capstone.CS_GRP_RET) or insn.mnemonic in _NO_FALL_THROUGH
    return _Decoded(insn.address, insn.size, text, target, indirect, bool(call), not ends)


def plan_site(function_code: bytes, function_start: int, address: int, *,
              displaced_near: int | None = None, other_parts: Sequence[tuple[int, bytes]] = (),
              landing_points: Collection[int] = ()) -> SitePlan | Refusal:  # fmt: skip
    """The span of a patch at `address` in the function whose bytes (as the program has
    them, traps masked) start at `function_start`, or why there can be none.
    `displaced_near`: where the displaced instructions will run (a patch area), so that
    relocation is checked with the distances it will have. `other_parts`: (address, bytes)
    of the function's code elsewhere (gcc's `f.cold`, DWARF ranges), whose branches may
    come back into it. `landing_points`: addresses reached without a branch instruction
    (C++ exception landing pads, computed-goto labels)."""
    function_end = function_start + len(function_code)
    if not function_start <= address < function_end:
        return Refusal(
            f"{address:#x} is not inside the function at {function_start:#x}-{function_end:#x}"
        )
    decoded = _decode_whole(function_code, function_start)
    if isinstance(decoded, Refusal):
        return decoded
    branches = list(decoded)
    for part_start, part_code in other_parts:
        part = _decode_whole(part_code, part_start)
        if isinstance(part, Refusal):
            return part
        branches += part
    first = next((i for i, insn in enumerate(decoded) if insn.address == address), None)
    if first is None:
        return Refusal(f"{address:#x} is not the start of an instruction")
    span: list[_Decoded] = []
    for insn in decoded[first:]:
        span.append(insn)
        if insn.address + insn.size - address >= JUMP_SIZE or not insn.falls_through:
            break
    end = span[-1].address + span[-1].size
    if end - address < JUMP_SIZE and not span[-1].falls_through:
        return Refusal(
            f"the code at {address:#x} ends ({span[-1].text} at {span[-1].address:#x}) "
            f"before the {JUMP_SIZE} bytes a jump needs"
        )
    if end - address < JUMP_SIZE:
        return Refusal(
            f"the {JUMP_SIZE} bytes of a jump at {address:#x} would run past the end of its function at {function_end:#x}"
        )
    landing = next((at for at in sorted(landing_points) if address < at < end), None)
    if landing is not None:
        return Refusal(
            f"{landing:#x}, where the program lands without a jump (an exception handler?), "
            f"is inside the {end - address} bytes the patch at {address:#x} would replace"
        )
    problem = _landing_problem(branches, span, address, end)
    if problem is not None:
        return Refusal(problem)
    plan = SitePlan(
        address,
        function_code[address - function_start : end - function_start],
        tuple(SiteInstruction(i.address, i.size, i.text) for i in span),
    )
    return _relocation_problem(plan, address if displaced_near is None else displaced_near) or plan


def _decode_whole(code: bytes, start: int) -> list[_Decoded] | Refusal:
    decoded = _decode(code, start)
    decoded_end = decoded[-1].address + decoded[-1].size if decoded else start
    if decoded_end < start + len(code):
        return Refusal(
            f"the instructions of the function at {start:#x} cannot be decoded at {decoded_end:#x}"
        )
    return decoded


def _landing_problem(
    decoded: list[_Decoded], span: list[_Decoded], address: int, end: int
) -> str | None:
    """Why something could land strictly inside [address, end), or None."""
    length = end - address
    for insn in decoded:
        if insn.direct_target is not None and address < insn.direct_target < end:
            return (
                f"the instruction at {insn.address:#x} ({insn.text}) jumps to {insn.direct_target:#x}, "
                f"inside the {length} bytes the patch at {address:#x} would replace"
            )
    if len(span) > 1:
        indirect = next((insn for insn in decoded if insn.indirect_jump), None)
        if indirect is not None:
            return (
                f"the function has an indirect jump at {indirect.address:#x} ({indirect.text}), which may land "
                f"anywhere, and a patch at {address:#x} would replace {len(span)} instructions"
            )
    for insn in span[:-1]:
        if insn.call:
            return (
                f"the call at {insn.address:#x} ({insn.text}) returns to {insn.address + insn.size:#x}, "
                f"inside the {length} bytes the patch at {address:#x} would replace"
            )
    return None


def _relocation_problem(plan: SitePlan, new_address: int) -> Refusal | None:
    try:
        from aliceserver.debuggers.ptrace.patches.relocate import Unrelocatable
    except ImportError:  # relocate.py has not landed: no site can be displaced yet
        return Refusal("this server cannot relocate displaced instructions yet")
    try:
        plan.relocated(new_address)
    except Unrelocatable as error:
        return Refusal(f"the instructions at {plan.address:#x} cannot run elsewhere: {error}")
    return None
