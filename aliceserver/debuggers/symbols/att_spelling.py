"""x86-64 AT&T text as binutils writes it (objdump, gdb's `x/i` and `disassemble`) from
capstone's: both decode the same instruction, they spell some of them otherwise.

What -O2 code and glibc's string functions hold, capstone's way -> binutils':
padding `nop` with 0x66 -> `xchg %ax,%ax`; `nopw %cs:(%rax, %rax)` -> `data16 cs nopw
0x0(%rax,%rax,1)` (an encoded zero displacement is written, scale 1 too, a redundant
prefix is a word: `data16`, `cs`, `ds`); `tzcntl %eax, %eax` -> `tzcnt` (no size suffix
where a general register tells the size); `callq`/`jmpq`/`retq` -> `call`/`jmp`/`ret`;
`$-0x80` -> `$0xffffff80` (an immediate in its operand's width); `sarl $1, %eax` -> `sar
%eax` (the shift-by-one opcodes); string instructions' implicit segments (`%es:(%rdi)`);
`repe` -> `repz`; x87 `fucompi %st(1)` -> `fucomip %st(1),%st`; capstone's large decimal
immediates in hex; AVX-512 masks without a space (`%k1{%k2}{z}`).
"""

from __future__ import annotations

import re
from typing import Any

from aliceserver.regexes import compiled_later

_LEGACY_PREFIXES = frozenset((0x66, 0x67, 0xF0, 0xF2, 0xF3, 0x2E, 0x36, 0x3E, 0x26, 0x64, 0x65))
_PREFIX_WORDS = {"repe": "repz", "repne": "repnz"}
# 64-bit mode ignores these overrides: binutils writes them as prefix words (`cs nopw`).
_IGNORED_SEGMENT = compiled_later(r"%(cs|ds|es|ss):")
_ALWAYS = {"callq": "call", "retq": "ret", "leaveq": "leave", "jmpq": "jmp", "pushq": "push", "popq": "pop"}
_X87_RENAMED = {"fucompi": "fucomip", "fcompi": "fcomip"}
_X87_TWO_OPERANDS = frozenset(("fucomi", "fcomi", "fucomip", "fcomip"))
_STRING_STEMS = ("movs", "cmps", "stos", "lods", "scas", "ins", "outs")
_SUFFIX_DROPPED_STRINGS = ("stos", "lods", "scas")  # a register operand tells their size
_GENERAL_REGISTER = compiled_later(r"%(r\d+[dwb]?|[re]?[abcd]x|[abcd][lh]|[re]?(si|di|sp|bp)|(si|di|sp|bp)l)$")
_TOP_LEVEL_COMMA = compiled_later(r", (?![^(]*\))")  # not the commas inside (%rax, %rax, 1)
_NO_DISPLACEMENT = compiled_later(r"(?<![\w)])\(")
_SCALE_ONE = compiled_later(r"\((%\w+)?, (%\w+)\)")
_NEGATIVE_IMMEDIATE = compiled_later(r"\$-0x([0-9a-f]+)")
_LARGE_DECIMAL = compiled_later(r"(?<![\w%.])(\d{2,})(?!\w)")  # capstone's 64-bit immediates
_MASK_SPACE = compiled_later(r" (?=\{)")  # AVX-512 `%k1 {%k2} {z}`: binutils writes `%k1{%k2}{z}`
_SHIFT_BY_ONE = (0xD0, 0xD1)
_IMMEDIATE_OPERAND = 2  # capstone's X86_OP_IMM


def binutils_spelling(insn: Any, operands: str) -> tuple[str, str]:
    """(mnemonic, operands) of capstone's decoded `insn`, its `operands` text already in
    objdump's hex, spelled as binutils does; operands stay `, `-separated."""
    *prefixes, operation = str(insn.mnemonic).split()
    prefixes = [_PREFIX_WORDS.get(word, word) for word in prefixes]
    if insn.insn_name() == "nop":
        operation, operands, extra = _padding(insn, operation, operands)
        prefixes = ["data16"] * extra + prefixes
    segment = _IGNORED_SEGMENT().search(operands)
    if segment is not None:
        prefixes.append(segment.group(1))
        operands = _IGNORED_SEGMENT().sub("", operands, count=1)
    if int(getattr(insn, "disp_size", 0)) and int(insn.disp) == 0:
        operands = _NO_DISPLACEMENT().sub("0x0(", operands, count=1)
    operands = _SCALE_ONE().sub(r"(\1, \2, 1)", operands)
    operands = _LARGE_DECIMAL().sub(lambda match: hex(int(match.group(1))), operands)
    operands = _MASK_SPACE().sub("", operands)
    operands = _immediates(insn, operands)
    if insn.opcode[0] in _SHIFT_BY_ONE:
        operands = re.sub(r"^\$0x1, ", "", operands)
    operation, operands = _operation(insn, operation, operands)
    return " ".join([*prefixes, operation]), operands


def _padding(insn: Any, operation: str, operands: str) -> tuple[str, str, int]:
    """A nop's spelling and how many of its 0x66 prefixes are redundant (`data16`)."""
    raw = bytes(insn.bytes)
    prefixes = 0
    while prefixes < len(raw) and raw[prefixes] in _LEGACY_PREFIXES:
        prefixes += 1
    sixty_six = raw[:prefixes].count(0x66)
    if operation == "nop" and sixty_six:  # 66 90: the operand-size prefix on xchg %eax,%eax
        return "xchg", "%ax, %ax", sixty_six - 1
    return operation, operands, max(0, sixty_six - 1) if operation == "nopw" else sixty_six


def _immediates(insn: Any, operands: str) -> str:
    """A negative immediate in its operand's width, as binutils writes it (`$0xffffff80`)."""
    match = _NEGATIVE_IMMEDIATE().search(operands)
    if match is None:
        return operands
    width = next((int(op.size) for op in insn.operands if op.type == _IMMEDIATE_OPERAND), 8)
    value = -int(match.group(1), 16) & ((1 << (8 * width)) - 1)
    return operands[: match.start()] + f"${value:#x}" + operands[match.end() :]


def _operation(insn: Any, operation: str, operands: str) -> tuple[str, str]:
    if operation in _ALWAYS:
        return _ALWAYS[operation], operands
    operation = _X87_RENAMED.get(operation, operation)
    if operation in _X87_TWO_OPERANDS and operands.startswith("%st(") and "," not in operands:
        return operation, operands + ", %st"
    stem = operation[:-1]
    if stem in _STRING_STEMS:
        operands = operands.replace("(%rdi)", "%es:(%rdi)").replace("(%rsi)", "%ds:(%rsi)")
    has_register = any(_GENERAL_REGISTER().match(part) for part in _TOP_LEVEL_COMMA().split(operands))
    suffixed = operation[-1:] in ("b", "w", "l", "q") and (stem == insn.insn_name() or stem in _SUFFIX_DROPPED_STRINGS)
    if suffixed and has_register:
        return stem, operands
    return operation, operands
