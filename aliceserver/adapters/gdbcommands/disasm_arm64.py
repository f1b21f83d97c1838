"""An aarch64 instruction as gdb 13 prints it (binutils' spelling), from capstone's text:
`mnemonic<TAB>operands`, branch and literal targets as addresses with their symbol
(`bl<TAB>0x400714 <leaf>`), load/store offsets and shift amounts in decimal, arithmetic,
logical and move immediates in hex (a move's value again in decimal in a comment), floats
as `%.18e`, and the comments naming a condition's SVE aliases (`b.lt ... // b.tstop`)."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.debuggers.model import Instruction
from aliceserver.regexes import compiled_later

Label = Callable[[int], str]

# Mnemonics whose last operand is a pc-relative address (a literal load's too).
_ADDRESSED = frozenset(("b", "bl", "cbz", "cbnz", "tbz", "tbnz", "adr", "adrp", "ldr", "ldrsw", "prfm"))
# Immediates binutils writes in hex (arithmetic, logical, move, condition-flags, exception
# and vector-move ones); the others (shifts, bit fields, bit numbers, offsets) in decimal.
_HEX_IMMEDIATES = frozenset((
    "add", "adds", "sub", "subs", "cmp", "cmn", "and", "ands", "orr", "eor", "tst", "mov",
    "movz", "movn", "movk", "ccmp", "ccmn", "svc", "hvc", "smc", "brk", "hlt", "movi", "mvni",
    "bic", "orn",
))  # fmt: skip
# binutils' condition names: the first is the one printed, the rest are named in a comment.
_CONDITIONS = {
    "eq": ("eq", "none"), "ne": ("ne", "any"), "hs": ("cs", "hs", "nlast"), "cs": ("cs", "hs", "nlast"),
    "lo": ("cc", "lo", "ul", "last"), "cc": ("cc", "lo", "ul", "last"), "mi": ("mi", "first"),
    "pl": ("pl", "nfrst"), "hi": ("hi", "pmore"), "ls": ("ls", "plast"), "ge": ("ge", "tcont"),
    "lt": ("lt", "tstop"),
}  # fmt: skip
_CONDITIONAL = frozenset(("csel", "csinc", "csinv", "csneg", "cset", "csetm", "cinc", "cinv", "cneg",
                          "ccmp", "ccmn", "fcsel", "fccmp", "fccmpe"))  # fmt: skip
_INTEGER = compiled_later(r"#(-?(?:0x[0-9a-f]+|\d+))$")
_IN_MEMORY = compiled_later(r"#(-?(?:0x[0-9a-f]+|\d+))")
_FLOAT = compiled_later(r"#(-?\d+\.\d+(?:e[-+]\d+)?)$")
_SHIFT = compiled_later(r"^(lsl|lsr|asr|ror|msl|[su]xt[bhwx]) #(0x[0-9a-f]+|\d+)$")
_MOVE_COMMENT_COLUMN = 23  # binutils pads a move's immediate to this width before `// #N`


def arm64_instruction_text(insn: Instruction, label: Label | None = None) -> str:
    if insn.mnemonic == "(bad)" and len(insn.raw) == 4:  # a word that decodes to nothing
        return f".inst\t{int.from_bytes(insn.raw, 'little'):#010x} ; undefined"
    mnemonic, operands = insn.mnemonic, _split(insn.operands)
    comment = ""
    if mnemonic.startswith("b.") and mnemonic[2:] in _CONDITIONS:
        names = _CONDITIONS[mnemonic[2:]]
        mnemonic = "b." + names[0]
        comment = "  // " + ", ".join("b." + name for name in names[1:])
    elif mnemonic in _CONDITIONAL and operands and operands[-1] in _CONDITIONS:
        names = _CONDITIONS[operands[-1]]
        operands[-1] = names[0]
        comment = f"\t// {names[0]} = {', '.join(names[1:])}"
    width = 32 if operands and operands[0].startswith("w") else 64
    after_memory = False
    for index, operand in enumerate(operands):
        last = index == len(operands) - 1
        if last and mnemonic.split(".")[0] in _ADDRESSED and not after_memory and _INTEGER().match(operand):
            operands[index] = _address(insn, int(_INTEGER().match(operand).group(1), 0), label)  # type: ignore[union-attr]
        elif operand.startswith("["):
            operands[index] = _IN_MEMORY().sub(lambda m: f"#{int(m.group(1), 0)}", operand)
        elif (shift := _SHIFT().match(operand)) is not None:
            operands[index] = f"{shift.group(1)} #{int(shift.group(2), 0)}"
        elif (floating := _FLOAT().match(operand)) is not None:
            operands[index] = f"#{float(floating.group(1)):.18e}"
        elif (integer := _INTEGER().match(operand)) is not None:
            value = int(integer.group(1), 0)
            if mnemonic in _HEX_IMMEDIATES and not after_memory:
                masked = value & ((1 << width) - 1) if mnemonic == "mov" else value
                operands[index] = f"#{masked:#x}" if masked >= 0 else f"#-{-masked:#x}"
                if mnemonic == "mov" and last:
                    operands[index] = operands[index].ljust(_MOVE_COMMENT_COLUMN)
                    comment = f"\t// #{value}"
            else:
                operands[index] = f"#{value}"
        after_memory = after_memory or operand.startswith("[")
    text = ", ".join(operands)
    return f"{mnemonic}\t{text}{comment}" if text else mnemonic


def _address(insn: Instruction, address: int, label: Label | None) -> str:
    target = insn.target
    if target is not None and target.name and target.address == address:
        suffix = f" <{target.name}+{target.offset}>" if target.offset else f" <{target.name}>"
    else:
        suffix = label(address) if label is not None else ""
    return f"{address:#x}{suffix}"


def _split(operands: str) -> list[str]:
    """Top-level operands: commas inside [] and {} do not split."""
    parts: list[str] = []
    depth = 0
    current = ""
    for char in operands:
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts
