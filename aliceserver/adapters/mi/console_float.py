"""gdb's `info float` on x86-64 (i387-tdep.c's i387_print_float_info): the eight physical
x87 registers R7..R0 (`=>` at the stack top) with their tags, raw bytes and values, then
the status, control and tag words and the last instruction's pointers and opcode."""

from __future__ import annotations

from aliceserver.adapters.mi.registers import read_raw
from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.debuggers.arch.program import program_architecture
from aliceserver.debuggers.symbols.dwarf.x87 import c_general

_TAGS = ("Valid   ", "Zero    ", "Special ", "Empty   ")
_PRECISION = ("Single Precision (24-bits)", "Reserved", "Double Precision (53-bits)",
              "Extended Precision (64-bits)")
_ROUNDING = ("Round to nearest", "Round down", "Round up", "Round toward zero")


def _value(raw: bytes) -> str:
    """gdb's ` %-+27.19g` of the extended float, exact."""
    from decimal import Decimal

    mantissa = int.from_bytes(raw[:8], "little")
    exponent = int.from_bytes(raw[8:10], "little") & 0x7FFF
    sign = "-" if raw[9] & 0x80 else "+"
    if mantissa == 0:
        return f" {sign + '0':<27}"
    power = max(exponent, 1) - 16383 - 63
    exact = Decimal(mantissa << power) if power >= 0 else Decimal(mantissa * 5**-power).scaleb(power)
    return f" {sign + c_general(exact, 19):<27}"


def _described(raw: bytes) -> str:
    """gdb's print_i387_ext: the value, or what kind of special encoding it is."""
    integer = raw[7] & 0x80
    exponent = int.from_bytes(raw[8:10], "little") & 0x7FFF
    fraction = int.from_bytes(raw[:8], "little") & ((1 << 63) - 1)
    if exponent == 0x7FFF and integer:
        if fraction == 0:
            return f" {'-' if raw[9] & 0x80 else '+'}Inf"
        if raw[9] & 0x80 and fraction == 1 << 62:
            return " Real Indefinite (QNaN)"
        return " QNaN" if fraction & (1 << 62) else " SNaN"
    if 0 < exponent < 0x7FFF and integer:
        return _value(raw)
    if exponent == 0:
        return _value(raw) + (" Pseudo-denormal" if integer else " Denormal" if fraction else "")
    return " Unsupported"


def _flags(word: int, names: list[tuple[int, str]]) -> str:
    return "".join(f" {name if word & bit else '  '}" for bit, name in names)


def _status(word: int) -> str:
    exceptions = _flags(word, [(1, "IE"), (2, "DE"), (4, "ZE"), (8, "OE"), (0x10, "UE"), (0x20, "PE")])
    codes = _flags(word, [(0x100, "C0"), (0x200, "C1"), (0x400, "C2"), (0x4000, "C3")])
    line = (f"Status Word:         {word:#06x}  {exceptions}  {_flags(word, [(0x80, 'ES')])}"
            f"  {_flags(word, [(0x40, 'SF')])}  {codes}\n")
    return line + f"                       TOP: {(word >> 11) & 7}\n"


def _control(word: int) -> str:
    masks = _flags(word, [(1, "IM"), (2, "DM"), (4, "ZM"), (8, "OM"), (0x10, "UM"), (0x20, "PM")])
    return (f"Control Word:        {word:#06x}  {masks}\n"
            f"                       PC: {_PRECISION[(word >> 8) & 3]}\n"
            f"                       RC: {_ROUNDING[(word >> 10) & 3]}\n")


def info_float(ctx: Context, text: str) -> None:
    session = ctx.session
    inferior = session.inferior
    if inferior.process is None or inferior.selected_tid is None:
        raise MiError("The program has no registers now.")
    if inferior.running:
        raise MiError("Selected thread is running.")
    if program_architecture(session.debugger).name != "i386:x86-64":
        raise MiError('"info float" is not supported by aliceserver on this architecture.')
    tid, level = inferior.selected_tid, inferior.selected_level
    values = read_raw(session, tid, level)  # the st registers as info registers reads them

    def control(name: str) -> int:  # gdb's form ($ftag the full tag word, $fop 11 bits)
        info = session.debugger.evaluate(f"${name}", tid, level, "x")
        return int(info.value, 16) if not info.error and info.value.startswith("0x") else 0

    status, tags = control("fstat"), control("ftag")
    top = (status >> 11) & 7
    lines = []
    for physical in range(7, -1, -1):
        tag = (tags >> (2 * physical)) & 3
        raw = values.get(f"st{(physical - top) % 8}")
        raw = raw if isinstance(raw, bytes) else bytes(10)
        shown = f"0x{raw[::-1].hex()}" + (_described(raw) if tag != 3 else "")
        lines.append(f"{'=>' if physical == top else '  '}R{physical}: {_TAGS[tag]}{shown}\n")
    lines.append("\n" + _status(status) + _control(control("fctrl")))
    lines.append(f"Tag Word:            {tags:#06x}\n")
    lines.append(f"Instruction Pointer: {control('fiseg'):#04x}:{control('fioff'):#010x}\n")
    lines.append(f"Operand Pointer:     {control('foseg'):#04x}:{control('fooff'):#010x}\n")
    fop = control("fop")
    lines.append(f"Opcode:              {(fop | 0xD800) if fop else 0:#06x}\n")
    ctx.console("".join(lines))
