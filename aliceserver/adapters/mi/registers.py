"""Registers with gdb's numbers and value formats (-data-list-register-*, info registers):
x86-64's as gdb numbers a description's (arch/x86_64_numbering.py: the stub's, or the one
gdb builds for the machine), their values as the evaluator prints `$name`; aarch64's core
and fpu features (gdb's numbers 0-67) and what its description adds."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registry import MiError
from aliceserver.debuggers.arch import x86_64_numbering as numbering
from aliceserver.debuggers.arch.program import program_architecture
from aliceserver.debuggers.targetregisters import HasTargetRegisters, RegisterListing
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.debuggers.model import VariableInfo

GENERAL = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12",
           "r13", "r14", "r15", "rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs")  # fmt: skip
X87 = ("fctrl", "fstat", "ftag", "fiseg", "fioff", "foseg", "fooff", "fop")
NAMES: tuple[str, ...] = (
    GENERAL + tuple(f"st{i}" for i in range(8)) + X87 + tuple(f"xmm{i}" for i in range(16))
    + ("mxcsr", "fs_base", "gs_base", "orig_rax")
)
_FLAGS = [(0, "CF"), (2, "PF"), (4, "AF"), (6, "ZF"), (7, "SF"), (8, "TF"), (9, "IF"), (10, "DF"),
          (11, "OF")]  # fmt: skip
_MXCSR = [(0, "IE"), (1, "DE"), (2, "ZE"), (3, "OE"), (4, "UE"), (5, "PE"), (6, "DAZ"), (7, "IM"),
          (8, "DM"), (9, "ZM"), (10, "OM"), (11, "UM"), (12, "PM"), (15, "FZ")]  # fmt: skip
_POINTERS = {"rbp", "rsp"}
AARCH64_NAMES: tuple[str, ...] = (
    *(f"x{n}" for n in range(31)), "sp", "pc", "cpsr", *(f"v{n}" for n in range(32)), "fpsr", "fpcr"
)
_WORDS = ("cpsr", "fpsr", "fpcr")  # aarch64's 32-bit ones


def register_names(session: MiSession) -> tuple[str, ...]:
    """The program's registers in gdb's numbering: on aarch64 the stub's description's
    (gdb numbers its raw registers so: the core, fpu or SVE, then the rest in order)."""
    name = program_architecture(session.debugger).name
    if name == "i386:x86-64":
        return _x86_names(session)
    if name != "aarch64":
        return NAMES
    debugger = session.debugger
    described = debugger.target_registers() if isinstance(debugger, HasTargetRegisters) else ()
    raw = tuple(register.name for register in described) or AARCH64_NAMES
    return raw + aarch64_pseudo_names(sve="z0" in raw)


def aarch64_pseudo_names(sve: bool) -> tuple[str, ...]:
    """aarch64-tdep.c's pseudo registers after the raw ones: the q, d, s, h and b views of
    the SIMD registers, v0-v31 themselves where SVE's z registers hold them, w0-w30."""
    views = tuple(f"{letter}{n}" for letter in "qdshb" + ("v" if sve else "") for n in range(32))
    return views + tuple(f"w{n}" for n in range(31))


def _x86_names(session: MiSession) -> tuple[str, ...]:
    debugger = session.debugger
    described = debugger.target_registers() if isinstance(debugger, HasTargetRegisters) else ()
    if described:
        return numbering.register_names(numbering.Described(r.name, r.feature) for r in described)
    inferior = session.inferior
    if inferior.process is None or inferior.running or inferior.selected_tid is None:
        return numbering.machine_names(avx=False, avx512=False)  # gdb's before a process
    process = session.debugger.process  # its machine's names, asked once (two engine calls)
    if session.machine_registers is None or session.machine_registers[0] != process:
        names = numbering.machine_names(*vector_extensions(session, inferior.selected_tid))
        session.machine_registers = (process, names)
    return session.machine_registers[1]


def vector_extensions(session: MiSession, tid: int) -> tuple[bool, bool, bool]:
    """Whether thread `tid`'s machine has AVX, AVX-512 and PKU's pkru (as its description
    would say)."""
    # The evaluator knows AVX-512's registers only where the machine has them ($k0 is
    # otherwise an empty convenience variable); AVX shows in the kernel's xstate.
    try:
        avx512 = session.evaluate("$k0", tid=tid, level=0).type != "void"
    except AliceError:
        avx512 = False
    try:
        avx = bool(session.debugger.read_vector_registers(tid).ymm)
    except AliceError:
        avx = False
    try:
        pkru = session.evaluate("$pkru", tid=tid, level=0).type != "void"
    except AliceError:
        pkru = False
    return avx, avx512, pkru


def evaluates_registers(session: MiSession) -> bool:
    """Whether registers are listed by gdb's numbers with their values as `$name` prints
    them (x86-64 and aarch64)."""
    return program_architecture(session.debugger).name in ("i386:x86-64", "aarch64")


def evaluated(session: MiSession, tid: int, level: int, name: str, fmt: str) -> str:
    """Register `name` in MI's format letter (x o t d z, r raw: z, N natural) as gdb's
    output_register prints it: the value alone, no pointer type before it."""
    return _shown(session.evaluate(f"${name}", _LETTERS.get(fmt, fmt), tid=tid, level=level))


_LETTERS = {"r": "z", "N": None}  # MI's format letters as print's


def _shown(info: VariableInfo) -> str:
    if info.type == "void":  # a register the engine cannot present (qemu's SVE p0-p15)
        return "<unavailable>"
    prefix = f"({info.type}) "
    return info.value[len(prefix) :] if info.value.startswith(prefix) else info.value


def _listing(session: MiSession) -> RegisterListing | None:
    lists = getattr(session.debugger, "register_lists", None)
    return lists if isinstance(lists, RegisterListing) else None


def numbered_values(session: MiSession, tid: int, level: int, fmt: str, numbers: list[int]) -> list[dict[str, str]]:
    """-data-list-register-values over gdb's numbers: every named one, or `numbers`
    (a number without a register is gdb's `bad register number`)."""
    names = register_names(session)
    for number in numbers:
        if not names[number]:
            raise MiError("bad register number")
    chosen = numbers or [number for number, name in enumerate(names) if name]
    listing = _listing(session)
    if listing is None:
        shown = [evaluated(session, tid, level, names[n], fmt) for n in chosen]
    else:  # all in one request: the register sets read once
        letter = _LETTERS.get(fmt, fmt)
        shown = [_shown(info) for info in listing.values(tid, level, [names[n] for n in chosen], letter)]
    return [{"number": str(n), "value": text} for n, text in zip(chosen, shown, strict=True)]


def numbered_contents(session: MiSession, tid: int, level: int, names: tuple[str, ...]) -> list[bytes | None]:
    """Each named register's raw bytes in frame `level` (for -data-list-changed-registers),
    None for one without a name or a value."""
    listing = _listing(session)
    if listing is not None:
        named = [name for name in names if name]
        found = iter(listing.contents(tid, level, named))
        return [next(found) if name else None for name in names]
    contents: list[bytes | None] = []
    for name in names:
        try:
            contents.append(evaluated(session, tid, level, name, "z").encode() if name else None)
        except AliceError:
            contents.append(None)  # unreadable now: as unreadable before
    return contents


def described_value(session: MiSession, tid: int, name: str) -> int | None:
    """An integer register the target's description adds (qemu's system registers), or
    None where `name` is none of them."""
    debugger = session.debugger
    if not isinstance(debugger, HasTargetRegisters):
        return None
    if not any(r.name == name and r.integer for r in debugger.target_registers()):
        return None
    return int.from_bytes(debugger.read_target_register(tid, name), "little")


def read_raw(session: MiSession, tid: int, level: int = 0) -> dict[str, int | bytes | None]:
    """Every register of NAMES the engine can read in frame `level`: ints, bytes for st/xmm,
    None for one the frame lost (gdb's `<not saved>`). Outer frames have the st and xmm
    registers of frame 0: the x86-64 CFI leaves them unspecified, gdb's same value."""
    values: dict[str, int | bytes | None] = dict(session.debugger.frame_registers(tid, level))
    try:
        vector = session.debugger.read_vector_registers(tid)
    except Exception:  # noqa: BLE001 - no extended state: the general ones still count
        return values
    for index, data in enumerate(vector.st[:8]):
        values[f"st{index}"] = data
    for index, data in enumerate(vector.xmm[:16]):
        values[f"xmm{index}"] = data
    for name in X87 + ("mxcsr",):
        values[name] = vector.control.get(name, 0)
    return values


def _bits(value: int, table: list[tuple[int, str]]) -> str:
    return "[ " + " ".join(name for bit, name in table if value >> bit & 1) + " ]" if value else "[ ]"


def extended_to_float(data: bytes) -> float:
    """An x87 80-bit extended value as a Python float (near enough to print)."""
    mantissa = int.from_bytes(data[:8], "little")
    top = int.from_bytes(data[8:10], "little")
    sign, exponent = top >> 15, top & 0x7FFF
    if exponent == 0 and mantissa == 0:
        return -0.0 if sign else 0.0
    if exponent == 0x7FFF:
        return float("-inf" if sign else "inf") if mantissa << 1 == 0 else float("nan")
    value = mantissa / (1 << 63) * 2.0 ** (exponent - 16383)
    return -value if sign else value


def _int_format(value: int, fmt: str, size: int = 8) -> str:
    if fmt == "x":
        return hex(value)
    if fmt == "o":
        return "0" + format(value, "o") if value else "0"
    if fmt == "t":
        return format(value, "b")
    if fmt == "d":
        return str(value - (1 << size * 8) if value >> (size * 8 - 1) else value)
    if fmt == "r" or fmt == "z":
        return f"0x{value:0{size * 2}x}"
    return str(value)


def _vector(data: bytes, fmt: str) -> str:
    """gdb's vector union, without the bfloat16/half views."""

    def group(name: str, code: str, width: int) -> str:
        count = len(data) // width
        if fmt == "N":
            values = struct.unpack(f"<{count}{code}", data)
            shown = [_number(v, 9 if code == "f" else 17) for v in values]
        else:
            unsigned = [int.from_bytes(data[i * width:(i + 1) * width], "little") for i in range(count)]
            shown = [_int_format(v, "x" if fmt == "r" else fmt, width) for v in unsigned]
        return f"{name} = {{{', '.join(shown)}}}"

    parts = [group("v4_float", "f", 4), group("v2_double", "d", 8), group("v16_int8", "b", 1),
             group("v8_int16", "h", 2), group("v4_int32", "i", 4), group("v2_int64", "q", 8)]
    whole = int.from_bytes(data, "little")
    parts.append(f"uint128 = {whole if fmt == 'N' else _int_format(whole, 'x' if fmt == 'r' else fmt, 16)}")
    return "{" + ", ".join(parts) + "}"


def _number(value: float | int, digits: int) -> str:
    if isinstance(value, float):
        return "0" if value == 0 else f"{value:.{digits}g}"
    return str(value)


def format_value(session: MiSession, name: str, raw: int | bytes, fmt: str) -> str:
    """One register in gdb's format letter: x o t d r N (natural)."""
    if isinstance(raw, bytes):
        if name.startswith("st"):
            if fmt in ("x", "r", "z"):
                return f"0x{int.from_bytes(raw, 'little'):020x}" if fmt != "x" else hex(int.from_bytes(raw, "little"))
            value = extended_to_float(raw)
            return "0" if value == 0 else repr(value)
        return _vector(raw, fmt)
    if fmt == "N":
        if name in _WORDS:
            return str(raw - (1 << 32) if raw >> 31 else raw)
        if name in ("rip", "pc"):
            symbol = session.debugger.lookup_address(raw)
            suffix = ""
            if symbol.name:
                suffix = f" <{symbol.name}+{symbol.offset}>" if symbol.offset else f" <{symbol.name}>"
            return hex(raw) + suffix
        if name in _POINTERS or name in ("fs_base", "gs_base", "sp"):
            return hex(raw)
        if name == "eflags":
            return _bits(raw, _FLAGS)
        if name == "mxcsr":
            return _bits(raw, _MXCSR)
        if name in X87 or name in GENERAL[18:]:
            return str(raw)
        return str(raw - (1 << 64) if raw >> 63 else raw)
    size = 4 if name in X87 or name in ("mxcsr", "eflags", *_WORDS) or name in GENERAL[18:] else 8
    return _int_format(raw, fmt, size)
