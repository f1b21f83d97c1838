"""gdb's `info auxv`: the program's auxiliary vector, one entry a line as gdb 13's
default_print_auxv_entry writes it (`%-4s %-20s %-30s ` then the value: decimal, an
address, or an address and the string it points to), AT_NULL last."""

from __future__ import annotations

from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.debuggers.target_queries import TargetQueries
from aliceserver.errors import AliceError

_DEC, _HEX, _STR = "dec", "hex", "str"
# gdb's auxv.c table for Linux: type -> (name, description, format)
_TAGS: dict[int, tuple[str, str, str]] = {
    0: ("AT_NULL", "End of vector", _HEX),
    1: ("AT_IGNORE", "Entry should be ignored", _HEX),
    2: ("AT_EXECFD", "File descriptor of program", _DEC),
    3: ("AT_PHDR", "Program headers for program", _HEX),
    4: ("AT_PHENT", "Size of program header entry", _DEC),
    5: ("AT_PHNUM", "Number of program headers", _DEC),
    6: ("AT_PAGESZ", "System page size", _DEC),
    7: ("AT_BASE", "Base address of interpreter", _HEX),
    8: ("AT_FLAGS", "Flags", _HEX),
    9: ("AT_ENTRY", "Entry point of program", _HEX),
    10: ("AT_NOTELF", "Program is not ELF", _DEC),
    11: ("AT_UID", "Real user ID", _DEC),
    12: ("AT_EUID", "Effective user ID", _DEC),
    13: ("AT_GID", "Real group ID", _DEC),
    14: ("AT_EGID", "Effective group ID", _DEC),
    15: ("AT_PLATFORM", "String identifying platform", _STR),
    16: ("AT_HWCAP", "Machine-dependent CPU capability hints", _HEX),
    17: ("AT_CLKTCK", "Frequency of times()", _DEC),
    18: ("AT_FPUCW", "Used FPU control word", _DEC),
    19: ("AT_DCACHEBSIZE", "Data cache block size", _DEC),
    20: ("AT_ICACHEBSIZE", "Instruction cache block size", _DEC),
    21: ("AT_UCACHEBSIZE", "Unified cache block size", _DEC),
    22: ("AT_IGNOREPPC", "Entry should be ignored", _DEC),
    23: ("AT_SECURE", "Boolean, was exec setuid-like?", _DEC),
    24: ("AT_BASE_PLATFORM", "String identifying base platform", _STR),
    25: ("AT_RANDOM", "Address of 16 random bytes", _HEX),
    26: ("AT_HWCAP2", "Extension of AT_HWCAP", _HEX),
    31: ("AT_EXECFN", "File name of executable", _STR),
    32: ("AT_SYSINFO", "Special system info/entry points", _HEX),
    33: ("AT_SYSINFO_EHDR", "System-supplied DSO's ELF header", _HEX),
    34: ("AT_L1I_CACHESHAPE", "L1 Instruction cache information", _HEX),
    35: ("AT_L1D_CACHESHAPE", "L1 Data cache information", _HEX),
    36: ("AT_L2_CACHESHAPE", "L2 cache information", _HEX),
    37: ("AT_L3_CACHESHAPE", "L3 cache information", _HEX),
    40: ("AT_L1I_CACHESIZE", "L1 Instruction cache size", _HEX),
    41: ("AT_L1I_CACHEGEOMETRY", "L1 Instruction cache geometry", _HEX),
    42: ("AT_L1D_CACHESIZE", "L1 Data cache size", _HEX),
    43: ("AT_L1D_CACHEGEOMETRY", "L1 Data cache geometry", _HEX),
    44: ("AT_L2_CACHESIZE", "L2 cache size", _HEX),
    45: ("AT_L2_CACHEGEOMETRY", "L2 cache geometry", _HEX),
    46: ("AT_L3_CACHESIZE", "L3 cache size", _HEX),
    47: ("AT_L3_CACHEGEOMETRY", "L3 cache geometry", _HEX),
    51: ("AT_MINSIGSTKSZ", "Minimum stack size for signal delivery", _HEX),
}


def _string(ctx: Context, address: int) -> str:
    """gdb's val_print_string of a C string (stopping at 200 characters, print elements)."""
    data = b""
    try:
        while b"\0" not in data and len(data) < 200:
            at = address + len(data)  # not past the page: the string may end the stack
            data += ctx.session.debugger.read_memory(at, min(64, 4096 - at % 4096))
    except AliceError:
        if not data:
            return f"<error: Cannot access memory at address {address:#x}>"
    text = data.split(b"\0", 1)[0][:200]
    shown = text.decode("latin-1").replace("\\", "\\\\").replace('"', '\\"')
    return f'"{shown}"' + ("..." if len(text) == 200 and b"\0" not in data[:201] else "")


def info_auxv(ctx: Context, text: str) -> None:
    session = ctx.session
    debugger = session.debugger
    if session.inferior.process is None or not isinstance(debugger, TargetQueries):
        raise MiError("The program has no auxiliary information now.")
    try:
        entries = debugger.auxiliary_vector()
    except AliceError:
        raise MiError("No auxiliary vector found, or failed reading it.") from None
    addresses = session.settings.get("print address") != "off"
    lines = []
    for kind, value in [*entries, (0, 0)]:
        name, description, fmt = _TAGS.get(kind, ("???", "", _HEX))
        shown = str(value) if fmt == _DEC else f"{value:#x}"
        if fmt == _STR:
            shown = (f"{value:#x} " if addresses else "") + _string(ctx, value)
        lines.append(f"{kind:<4} {name:<20} {description:<30} {shown}\n")
    ctx.console("".join(lines))
