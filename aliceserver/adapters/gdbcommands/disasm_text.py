"""An instruction as gdb prints it (AT&T, objdump spelling): `mov    -0x14(%rbp),%edx`."""

from __future__ import annotations

import re
from collections.abc import Callable

from aliceserver.adapters.gdbcommands.disasm_arm64 import arm64_instruction_text
from aliceserver.debuggers.model import Instruction

# ` <symbol+offset>` for an address (empty when no symbol holds it), as print_address adds.
Label = Callable[[int], str]
_RIP_RELATIVE = re.compile(r"(-?0x[0-9a-f]+)\(%rip\)")

_SIZED = {"mov", "add", "sub", "and", "or", "xor", "cmp", "test", "lea", "push", "pop", "inc", "dec",
          "neg", "not", "shl", "shr", "sar", "sal", "imul", "adc", "sbb", "xchg"}  # fmt: skip
_ALWAYS = {"callq": "call", "retq": "ret", "leaveq": "leave", "jmpq": "jmp", "pushq": "push", "popq": "pop"}


def instruction_text(insn: Instruction, label: Label | None = None) -> str:
    if insn.arch == "aarch64":
        return arm64_instruction_text(insn, label)
    mnemonic = insn.mnemonic
    operands = insn.operands.replace(", ", ",")
    # `push $0x1` too: objdump (binutils 2.40, gdb 13's) drops the suffix of an immediate push
    if mnemonic in _ALWAYS and (not operands or "%" in operands or operands.startswith(("0x", "$"))):
        mnemonic = _ALWAYS[mnemonic]
    elif mnemonic[:-1] in _SIZED and mnemonic[-1] in "bwlq":
        if any(part.startswith("%") for part in _top_level(operands)):
            mnemonic = mnemonic[:-1]
    if insn.target is not None and insn.target.name:
        target = insn.target
        operands += f" <{target.name}+{target.offset}>" if target.offset else f" <{target.name}>"
    text = f"{mnemonic:<6} {operands}" if operands else mnemonic
    return text + rip_comment(insn, label)


def rip_comment(insn: Instruction, label: Label | None) -> str:
    """objdump's `        # 0x555555558020 <counter>` after a rip-relative operand: the
    address it reaches (from the end of the instruction), with its symbol when known."""
    match = _RIP_RELATIVE.search(insn.operands)
    if match is None:
        return ""
    target = (insn.address + insn.size + int(match.group(1), 16)) % (1 << 64)
    return f"        # {target:#x}{label(target) if label is not None else ''}"


def _top_level(operands: str) -> list[str]:
    return [part.strip() for part in re.split(r",(?![^(]*\))", operands) if part.strip()]
