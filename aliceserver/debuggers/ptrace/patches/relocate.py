"""Moving the instructions a jump patch displaces to a trampoline at another address.

`relocate` re-encodes whole x86-64 instructions decoded at `address` so that, run at
`new_address`, they do what they did: RIP-relative memory operands get their disp32 moved,
relative branches keep their targets (rel8 forms widened to rel32), and a call pushes the
return address of the ORIGINAL code. The caller appends the `jmp rel32` back to
address + len(code). What cannot be moved raises `Unrelocatable` with a reason a user can
read and a `RefusalKind`.

A branch to a later displaced instruction goes to its copy; a branch back to `address`
itself goes to the site (the patch there runs the trampoline again, as the original would
hit the breakpoint again). Known differences from the original, none visible to a correct
program: the x87 last-instruction pointer (FIP) of a moved x87 instruction is its copy's,
and a moved indirect call whose memory operand or target faults (a bad function pointer)
faults with its return address already pushed (rsp 8 lower in the crash report). A moved
call leaves a CET user shadow stack unbalanced: with shadow stacks on, calls must stay put.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aliceserver.errors import AliceError

if TYPE_CHECKING:
    import capstone  # type: ignore[import-untyped, unused-ignore]

_INT32 = range(-(1 << 31), 1 << 31)
_MASK64 = (1 << 64) - 1
# Branch prefixes that change nothing in 64-bit mode: MPX's bnd (MPX is gone) and the
# static hints (2E/3E, ignored by CPUs since the Pentium 4). They are dropped on re-encoding.
_HARMLESS_BRANCH_PREFIXES = frozenset({0x00, 0xF2, 0x2E, 0x3E})
_X86_GRP_CALL = 2
_X86_GRP_BRANCH_RELATIVE = 7
_CALL_REL32, _JMP_REL32, _JMP_REL8 = 0xE8, 0xE9, 0xEB
_INDIRECT = 0xFF  # FF /2 is `call r/m64`, FF /4 is `jmp r/m64`
_RELATIVE = ("branch", "call")  # the pieces with a rel32 target


class RefusalKind(enum.Enum):
    UNDECODABLE = "undecodable"  # no whole x86-64 instructions
    SHORT_ONLY = "short-only"  # jrcxz/loop/loopcc: rel8 with no rel32 form
    OWN_ADDRESS = "own-address"  # xbegin, syscall...: the CPU keeps their own address
    BREAKPOINT = "breakpoint"  # an int3 byte: someone's breakpoint or padding
    PREFIX = "prefix"  # a branch whose prefix changes its operand or address size
    CALL_NOT_LAST = "call-not-last"  # a call returning into the displaced bytes
    CALL_USES_RSP = "call-uses-rsp"  # an indirect call whose operand reads rsp
    FAR = "far"  # far calls and jumps through memory
    INTO_INSTRUCTION = "into-instruction"  # a branch into the middle of a displaced instruction
    OUT_OF_RANGE = "out-of-range"  # the moved disp32/rel32 does not fit


class Unrelocatable(AliceError):
    """The displaced instructions cannot run elsewhere; the message says why."""

    def __init__(self, reason: str, kind: RefusalKind) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Relocation:
    code: bytes
    # (offset in `code`, offset in the original) for every relocated instruction, so that a
    # stop inside the copy can be reported at the original instruction.
    origins: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class _Piece:
    """One decoded instruction and how it is re-encoded."""

    offset: int  # in the original bytes
    raw: bytes
    text: str  # `mnemonic op_str`, for reasons
    kind: str  # "copy", "branch", "call", "indirect-call"
    target: int = 0  # branch and call targets
    opcode: int = 0  # jcc condition opcode (0x70-0x7F) for conditional branches
    disp_offset: int = 0  # where a rip-relative disp32 sits in `raw` (0: none)
    modrm_offset: int = 0  # where an indirect call's ModRM byte sits in `raw`

    @property
    def new_size(self) -> int:
        if self.kind == "branch":
            return 5 if self.opcode in (_JMP_REL8, _JMP_REL32) else 6
        if self.kind in ("call", "indirect-call"):
            tail = 5 if self.kind == "call" else len(self.raw)
            return 13 + tail  # push imm32; mov dword [rsp+4], imm32; then the jump
        return len(self.raw)


def _decoder() -> capstone.Cs:
    import capstone  # type: ignore[import-untyped, unused-ignore]

    handle = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    handle.detail = True
    return handle


def _stack_disp_offset(insn: Any, text: str) -> int:
    """Where the disp of an indirect call's `[rsp+disp]` operand sits (0: no rsp operand).

    The moved call pushes the return address before it jumps through the operand, so an
    rsp-based displacement must grow by 8; without one (or with a register rsp) it is refused.
    """
    from capstone import x86

    for op in insn.operands:
        if op.type == x86.X86_OP_REG and op.reg == x86.X86_REG_RSP:
            break
        if op.type == x86.X86_OP_MEM and op.mem.base == x86.X86_REG_RSP:
            size = {1: 1, 2: 4}.get(insn.modrm >> 6, 0)  # ModRM.mod: disp8, disp32 or none
            if size and op.mem.disp + 8 <= (0x7F if size == 1 else 0x7FFFFFFF):
                return int(insn.disp_offset)
            break
    else:
        return 0
    raise Unrelocatable(
        f"instruction `{text}` cannot be moved: it reads rsp, which the moved call's "
        "return address push changes first",
        RefusalKind.CALL_USES_RSP,
    )


def _classify(insn: Any, offset: int) -> _Piece:
    from capstone import x86

    raw = bytes(insn.bytes)
    text = f"{insn.mnemonic} {insn.op_str}".strip()
    name = insn.mnemonic.split()[-1]  # without `bnd`, `notrack`, `rep`, `lock`
    if name in ("jrcxz", "jecxz", "loop", "loope", "loopne"):
        reason = f"instruction `{text}` cannot be moved: it has only a rel8 form"
        raise Unrelocatable(reason, RefusalKind.SHORT_ONLY)
    if name in ("xbegin", "syscall", "sysenter"):
        reason = f"instruction `{text}` cannot be moved: the CPU keeps its own address"
        reason += " (its abort address)" if name == "xbegin" else " in rcx"
        raise Unrelocatable(reason, RefusalKind.OWN_ADDRESS)
    if name == "int3":
        reason = "an int3 cannot be moved: it is a breakpoint or padding, not the program's code"
        raise Unrelocatable(reason, RefusalKind.BREAKPOINT)
    groups = set(insn.groups)
    opcode = insn.opcode[0] if insn.opcode[0] != 0x0F else insn.opcode[1]
    if _X86_GRP_BRANCH_RELATIVE in groups:
        if any(p not in _HARMLESS_BRANCH_PREFIXES for p in insn.prefix):
            reason = f"instruction `{text}` cannot be moved: its prefix changes the branch"
            raise Unrelocatable(reason, RefusalKind.PREFIX)
        target = insn.operands[0].imm & _MASK64
        if opcode == _CALL_REL32:
            return _Piece(offset, raw, text, "call", target=target)
        if 0x80 <= opcode <= 0x8F:
            opcode -= 0x10  # jcc rel32 as its rel8 condition code
        return _Piece(offset, raw, text, "branch", target=target, opcode=opcode)
    disp_offset = 0
    for op in insn.operands:
        if op.type == x86.X86_OP_MEM and op.mem.base == x86.X86_REG_RIP:
            disp_offset = insn.disp_offset
    if insn.opcode[0] == _INDIRECT and insn.modrm_offset and (insn.modrm >> 3) & 7 in (3, 5):
        reason = f"instruction `{text}` cannot be moved: far calls and jumps are not handled"
        raise Unrelocatable(reason, RefusalKind.FAR)
    if _X86_GRP_CALL in groups:
        if insn.opcode[0] != _INDIRECT:
            reason = f"instruction `{text}` cannot be moved: an unknown kind of call"
            raise Unrelocatable(reason, RefusalKind.FAR)
        stack = _stack_disp_offset(insn, text)
        if stack:
            size = 1 if insn.modrm >> 6 == 1 else 4
            disp = int.from_bytes(raw[stack : stack + size], "little", signed=True) + 8
            raw = raw[:stack] + disp.to_bytes(size, "little", signed=True) + raw[stack + size :]
        return _Piece(offset, raw, text, "indirect-call", disp_offset=disp_offset,
                      modrm_offset=insn.modrm_offset)  # fmt: skip
    return _Piece(offset, raw, text, "copy", disp_offset=disp_offset)


def _plan(code: bytes, address: int) -> list[_Piece]:
    pieces: list[_Piece] = []
    offset = 0
    for insn in _decoder().disasm(code, address):
        pieces.append(_classify(insn, offset))
        offset += insn.size
    if offset != len(code) or not pieces:
        where = f"{address + offset:#x}"
        raise Unrelocatable(f"the bytes at {where} decode to no whole x86-64 instruction",
                            RefusalKind.UNDECODABLE)  # fmt: skip
    for piece in pieces[:-1]:
        if piece.kind in ("call", "indirect-call"):
            reason = (f"instruction `{piece.text}` cannot be moved: the call would return "
                      "into the middle of the patched instructions")  # fmt: skip
            raise Unrelocatable(reason, RefusalKind.CALL_NOT_LAST)
    starts = {piece.offset for piece in pieces}
    for piece in pieces:
        inside = piece.target - address
        if piece.kind in _RELATIVE and 0 < inside < len(code) and inside not in starts:
            reason = f"instruction `{piece.text}` cannot be moved: it jumps into an instruction"
            raise Unrelocatable(reason, RefusalKind.INTO_INSTRUCTION)
    return pieces


def relocatable(code: bytes, address: int) -> str | None:
    """None when `code` at `address` can be moved (to an address in range), else why not."""
    try:
        _plan(code, address)
    except Unrelocatable as refusal:
        return refusal.reason
    return None


def _rel32(value: int, piece: _Piece, what: str) -> bytes:
    if value not in _INT32:
        reason = f"instruction `{piece.text}` cannot be moved that far: its {what} is out of range"
        raise Unrelocatable(reason, RefusalKind.OUT_OF_RANGE)
    return struct.pack("<i", value)


def _fix_disp(raw: bytes, piece: _Piece, moved_by: int) -> bytes:
    """`raw` with its rip-relative disp32 (if any) corrected for running `moved_by` later."""
    if not piece.disp_offset:
        return raw
    at = piece.disp_offset
    (disp,) = struct.unpack_from("<i", raw, at)
    return raw[:at] + _rel32(disp - moved_by, piece, "rip-relative operand") + raw[at + 4 :]


def _push_return_address(value: int) -> bytes:
    """push imm32 (sign-extends the low half) then mov dword [rsp+4], high half: no flags."""
    low, high = value & 0xFFFFFFFF, value >> 32
    return b"\x68" + struct.pack("<I", low) + b"\xc7\x44\x24\x04" + struct.pack("<I", high)


def relocation(code: bytes, address: int, new_address: int) -> Relocation:
    """`relocate` with the map from the copy's instructions back to the originals."""
    pieces = _plan(code, address)
    new_offsets: dict[int, int] = {}
    size = 0
    for piece in pieces:
        new_offsets[piece.offset] = size
        size += piece.new_size
    out = bytearray()
    origins: list[tuple[int, int]] = []
    for piece in pieces:
        here = new_address + len(out)
        end = here + piece.new_size
        origins.append((len(out), piece.offset))
        inside = piece.target - address
        target = piece.target
        if piece.kind in _RELATIVE and 0 < inside < len(code):
            target = new_address + new_offsets[inside]  # a branch within the moved code
        if piece.kind == "branch":
            unconditional = piece.opcode in (_JMP_REL8, _JMP_REL32)
            head = b"\xe9" if unconditional else bytes((0x0F, piece.opcode + 0x10))
            out += head + _rel32(target - end, piece, "branch target")
        elif piece.kind == "call":
            out += _push_return_address(address + piece.offset + len(piece.raw))
            out += b"\xe9" + _rel32(target - end, piece, "call target")
        elif piece.kind == "indirect-call":
            out += _push_return_address(address + piece.offset + len(piece.raw))
            as_jump, modrm = bytearray(piece.raw), piece.modrm_offset
            as_jump[modrm] = as_jump[modrm] & ~0x38 | 0x20  # FF /2 -> FF /4: same operand
            moved_by = end - (address + piece.offset + len(piece.raw))
            out += _fix_disp(bytes(as_jump), piece, moved_by)
        else:
            moved_by = end - (address + piece.offset + len(piece.raw))
            out += _fix_disp(piece.raw, piece, moved_by)
    return Relocation(bytes(out), tuple(origins))


def relocate(code: bytes, address: int, new_address: int) -> bytes:
    """`code` (whole instructions decoded at `address`) re-encoded to run at `new_address`.

    Raises Unrelocatable with a reason for instructions that cannot be moved, or that would
    need a disp32/rel32 out of range from `new_address`.
    """
    return relocation(code, address, new_address).code
