"""An instruction as gdb prints it (AT&T, objdump spelling): `mov    -0x14(%rbp),%edx`."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.adapters.gdbcommands.disasm_arm64 import arm64_instruction_text
from aliceserver.debuggers.model import Instruction
from aliceserver.regexes import compiled_later

# ` <symbol+offset>` for an address (empty when no symbol holds it), as print_address adds.
Label = Callable[[int], str]
_RIP_RELATIVE = compiled_later(r"(-?0x[0-9a-f]+)\(%rip\)")


def instruction_text(insn: Instruction, label: Label | None = None) -> str:
    if insn.arch == "aarch64":
        return arm64_instruction_text(insn, label)
    mnemonic = insn.mnemonic  # spelled as binutils does where it was decoded (att_spelling.py)
    operands = insn.operands.replace(", ", ",")
    if insn.target is not None and insn.target.name:
        target = insn.target
        operands += f" <{target.name}+{target.offset}>" if target.offset else f" <{target.name}>"
    text = f"{mnemonic:<6} {operands}" if operands else mnemonic
    return text + rip_comment(insn, label)


def rip_comment(insn: Instruction, label: Label | None) -> str:
    """objdump's `        # 0x555555558020 <counter>` after a rip-relative operand: the
    address it reaches (from the end of the instruction), with its symbol when known."""
    match = _RIP_RELATIVE().search(insn.operands)
    if match is None:
        return ""
    target = (insn.address + insn.size + int(match.group(1), 16)) % (1 << 64)
    return f"        # {target:#x}{label(target) if label is not None else ''}"
