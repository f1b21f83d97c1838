"""Disassembly with capstone in the program's architecture's mode (x86-64 by default,
aarch64's ARM64 mode), annotated with symbols like gdb's `x/i`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.arch.registry import X86_64_ARCH
from aliceserver.debuggers.model import Instruction, SymbolLocation
from aliceserver.errors import ProtocolError
from aliceserver.regexes import compiled_later

log = logging.getLogger(__name__)

Resolve = Callable[[int], SymbolLocation]

if TYPE_CHECKING:
    import capstone  # type: ignore[import-untyped, unused-ignore]

SYNTAXES = ("intel", "att")
_ADDRESS_MASK = (1 << 64) - 1
BAD = "(bad)"  # what gdb and objdump print for bytes that decode to no instruction
# Capstone writes numbers below 10 in decimal and the rest in hex; gdb and objdump write all
# in hex. A lone digit that is no register digit, scale (`*8`, `, 8)`) or x87 `st(1)`:
_SMALL_DECIMAL = compiled_later(r"(?<![\w*(,%.])(\d)(?![\w.)])")


class Disassembler:
    """One capstone handle per syntax, made on first use.

    Capstone handles are not thread-safe: use one Disassembler per thread (the engine
    disassembles on its tracer thread). An architecture with one syntax (aarch64) takes
    any flavour and writes its own, as gdb's `set disassembly-flavor` changes x86 only.
    With `follow`, it decodes as the architecture that gives at each call (the engine's:
    the program's, which a new program may change).
    """

    def __init__(self, arch: Architecture = X86_64_ARCH, *,
                 follow: Callable[[], Architecture] | None = None) -> None:  # fmt: skip
        self._arch = arch
        self._follow = follow
        self._handles: dict[str, capstone.Cs] = {}

    @property
    def arch(self) -> Architecture:
        if self._follow is not None:
            arch = self._follow()
            if arch is not self._arch:  # another program's: handles in its mode
                self._arch, self._handles = arch, {}
        return self._arch

    @property
    def _x86(self) -> bool:
        return self.arch.name == X86_64_ARCH.name

    def _handle(self, syntax: str) -> capstone.Cs:
        arch = self.arch  # first: a new program's architecture drops the old handles
        handle = self._handles.get(syntax)
        if handle is None:
            # Imported on first use: capstone takes 50-90 ms to import (it loads ctypes.util
            # and importlib.resources), and many sessions reach their first stop without
            # disassembling anything.
            import capstone  # type: ignore[import-untyped, unused-ignore]

            options = {"intel": capstone.CS_OPT_SYNTAX_INTEL, "att": capstone.CS_OPT_SYNTAX_ATT}
            option = options.get(syntax)
            if option is None:
                raise ProtocolError(
                    f"unknown disassembly syntax {syntax!r} (expected {' or '.join(SYNTAXES)})"
                )
            handle = capstone.Cs(getattr(capstone, arch.capstone_arch), getattr(capstone, arch.capstone_mode))
            if arch.name == X86_64_ARCH.name:
                handle.syntax = option
            handle.detail = True  # groups and operands, to find direct branch targets
            self._handles[syntax] = handle
        return handle

    def disassemble(
        self,
        code: bytes,
        address: int,
        count: int | None = None,
        *,
        syntax: str = "intel",
        resolve: Resolve | None = None,
    ) -> list[Instruction]:
        """Decode `code` (mapped at `address`): all of it, or the first `count` instructions.

        An undecodable byte becomes a one-byte `(bad)` instruction and decoding goes on after
        it. With `resolve`, each instruction gets its location and each direct call or jump
        (an immediate target) the location of its target.
        """
        handle = self._handle(syntax)
        arch = self.arch.name
        limit = len(code) if count is None else max(0, count)
        result: list[Instruction] = []
        offset = 0
        while offset < len(code) and len(result) < limit:
            for insn in handle.disasm(code[offset:], address + offset):
                result.append(_instruction(insn, resolve, arch, att=syntax == "att"))
                offset += insn.size
                if len(result) >= limit:
                    break
            else:
                if offset < len(code):
                    width = self._bad_width
                    result.append(_bad(code[offset : offset + width], address + offset, resolve, arch))
                    offset += width
        return result

    def straight_run(self, code: bytes) -> tuple[int, int]:
        """(offset, count): the first instruction in `code` that may transfer control
        (jump, call, return, system call, trap; an undecodable byte too) starts at
        `offset`, after `count` instructions that just fall through; (len(code), count)
        when there is none."""
        handle = self._handle("intel")
        offset = count = 0
        transfers = _transfers_control if self._x86 else _arm64_transfers_control
        for _address, size, mnemonic, _operands in handle.disasm_lite(code, 0):
            if transfers(mnemonic):
                return offset, count
            offset += size
            count += 1
        return offset, count  # the end, or an undecodable byte there

    def instruction_boundaries(self, code: bytes, address: int) -> list[int]:
        """Start addresses of the instructions met when decoding `code` linearly from
        `address` (an undecodable byte counts as a one-byte instruction)."""
        handle = self._handle("intel")
        starts: list[int] = []
        offset = 0
        while offset < len(code):
            for insn_address, size, _mnemonic, _operands in handle.disasm_lite(
                code[offset:], address + offset
            ):
                starts.append(insn_address)
                offset += size
            if offset < len(code):  # capstone stopped at an undecodable byte (word)
                starts.append(address + offset)
                offset += self._bad_width
        return starts

    @property
    def _bad_width(self) -> int:
        """What an undecodable stretch counts as: a byte on x86, a word on aarch64."""
        return 1 if self._x86 else len(self.arch.breakpoint)


_CONTROL_PREFIXES = ("j", "call", "ret", "iret", "loop", "int", "sys", "ud", "hlt", "xbegin", "xabort")


def _transfers_control(mnemonic: str) -> bool:
    operation = mnemonic.rsplit(" ", 1)[-1]  # past prefixes such as `bnd` and `notrack`
    return operation.startswith(_CONTROL_PREFIXES)


_ARM64_CONTROL = frozenset(("b", "bl", "br", "blr", "ret", "cbz", "cbnz", "tbz", "tbnz", "svc",
                            "hvc", "smc", "brk", "hlt", "udf", "eret", "braa", "brab", "blraa",
                            "blrab", "retaa", "retab"))  # fmt: skip


def _arm64_transfers_control(mnemonic: str) -> bool:
    return mnemonic in _ARM64_CONTROL or mnemonic.startswith("b.")


def _instruction(insn: Any, resolve: Resolve | None, arch: str = X86_64_ARCH.name, *, att: bool = False) -> Instruction:
    x86 = arch == X86_64_ARCH.name
    address = int(insn.address)
    symbol = target = None
    if resolve is not None:
        symbol = resolve(address)
        branch = _direct_target(insn) if x86 else _arm64_direct_target(insn)
        if branch is not None:
            target = resolve(branch)
    mnemonic = str(insn.mnemonic)
    operands = _SMALL_DECIMAL().sub(r"0x\1", str(insn.op_str)) if x86 else str(insn.op_str).strip()
    if x86 and att:  # gdb's text is objdump's
        from aliceserver.debuggers.symbols.att_spelling import binutils_spelling

        mnemonic, operands = binutils_spelling(insn, operands)
    return Instruction(
        address=address,
        size=int(insn.size),
        raw=bytes(insn.bytes),
        mnemonic=mnemonic,
        operands=operands,
        symbol=symbol,
        target=target,
        arch=arch,
    )


def _direct_target(insn: Any) -> int | None:
    import capstone  # already loaded: insn came from it
    from capstone import x86 as capstone_x86  # type: ignore[import-untyped, unused-ignore]

    if not (insn.group(capstone.CS_GRP_JUMP) or insn.group(capstone.CS_GRP_CALL)):
        return None
    operands = insn.operands
    if len(operands) == 1 and operands[0].type == capstone_x86.X86_OP_IMM:
        return int(operands[0].imm) & _ADDRESS_MASK
    return None


def _arm64_direct_target(insn: Any) -> int | None:
    import capstone  # already loaded: insn came from it
    from capstone import arm64 as capstone_arm64  # type: ignore[import-untyped, unused-ignore]

    if not (insn.group(capstone.CS_GRP_JUMP) or insn.group(capstone.CS_GRP_CALL)):
        return None
    immediates = [op for op in insn.operands if op.type == capstone_arm64.ARM64_OP_IMM]
    return int(immediates[-1].imm) & _ADDRESS_MASK if immediates else None


def _bad(raw: bytes, address: int, resolve: Resolve | None, arch: str = X86_64_ARCH.name) -> Instruction:
    symbol = resolve(address) if resolve is not None else None
    return Instruction(
        address=address, size=len(raw), raw=raw, mnemonic=BAD, operands="", symbol=symbol, arch=arch
    )


def instruction_boundaries(code: bytes, address: int) -> list[int]:
    """Disassembler.instruction_boundaries with a handle of its own (about 50 us to make)."""
    return Disassembler().instruction_boundaries(code, address)
