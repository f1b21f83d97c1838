"""An instruction as gdb prints it (AT&T, objdump spelling): `mov    -0x14(%rbp),%edx`."""

from __future__ import annotations

import re

from aliceserver.debuggers.model import Instruction

_SIZED = {"mov", "add", "sub", "and", "or", "xor", "cmp", "test", "lea", "push", "pop", "inc", "dec",
          "neg", "not", "shl", "shr", "sar", "sal", "imul", "adc", "sbb", "xchg"}  # fmt: skip
_ALWAYS = {"callq": "call", "retq": "ret", "leaveq": "leave", "jmpq": "jmp", "pushq": "push", "popq": "pop"}


def instruction_text(insn: Instruction) -> str:
    mnemonic = insn.mnemonic
    operands = insn.operands.replace(", ", ",")
    if mnemonic in _ALWAYS and (not operands or "%" in operands or operands.startswith("0x")):
        mnemonic = _ALWAYS[mnemonic]
    elif mnemonic[:-1] in _SIZED and mnemonic[-1] in "bwlq":
        if any(part.startswith("%") for part in _top_level(operands)):
            mnemonic = mnemonic[:-1]
    if insn.target is not None and insn.target.name:
        target = insn.target
        operands += f" <{target.name}+{target.offset}>" if target.offset else f" <{target.name}>"
    return f"{mnemonic:<6} {operands}" if operands else mnemonic


def _top_level(operands: str) -> list[str]:
    return [part.strip() for part in re.split(r",(?![^(]*\))", operands) if part.strip()]
