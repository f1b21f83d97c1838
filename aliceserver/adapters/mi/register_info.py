"""`info registers`, `info all-registers` and `info vector`, laid out as gdb 13 prints them.

gdb prints one register a line (infcmd.c's default_print_one_register_info): the name padded
to column 15, then for an integer register its hex value padded to column 35 and its natural
value, for a float one its natural value and `(raw 0x...)`, for a vector one the hex view of
its union alone, and `<not saved>` alone where the frame lost it. Every value comes from the
evaluator's `$name` in the selected frame, so outer frames show what their callers saved.
Which registers make up a group follows amd64-linux-tdep.c and i386-tdep.c
(i386_register_reggroup_p) for the machine's vector extension: AVX-512, AVX or SSE alone.
Other CPUs (aarch64) are laid out by register_info_described.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from aliceserver.adapters.mi import register_info_described as described
from aliceserver.adapters.mi.registers import (
    GENERAL,
    X87,
    read_raw,
    register_names,
    vector_extensions,
)
from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.debuggers.arch import x86_64_numbering as numbering
from aliceserver.debuggers.arch.program import program_architecture

_NAME_COLUMN = 15
_NATURAL_COLUMN = 35  # value_column_1 + "0x" + 16 hex digits + two spaces
_FLOAT = tuple(f"st{i}" for i in range(8)) + X87
_SYSTEM = ("fs_base", "gs_base", "orig_rax")
_USER = ("pc", "sp", "fp", "ps")  # gdb's user registers, named as typed
# gdb's register groups, in the order `info registers GROUP` matches a prefix against them.
_GROUPS = ("general", "float", "system", "vector", "all", "save", "restore", "sse", "mmx")


@dataclass(frozen=True, slots=True)
class _Machine:
    """The vector extension gdb's target description has for this thread."""

    avx512: bool
    avx: bool
    pkru: bool = False

    def vectors(self) -> tuple[str, ...]:
        """The vector group's registers after mxcsr: the widest ones the machine has."""
        if self.avx512:
            return tuple(f"zmm{i}" for i in range(32))
        return tuple(f"{'ymm' if self.avx else 'xmm'}{i}" for i in range(16))

    def general(self) -> tuple[str, ...]:
        return GENERAL + (tuple(f"k{i}" for i in range(8)) if self.avx512 else ())

    def group(self, name: str) -> tuple[str, ...]:
        sse_only = not self.avx and not self.avx512
        xmms = tuple(f"xmm{i}" for i in range(32 if self.avx512 else 16))
        if name == "general":
            return self.general()
        if name == "float":
            return _FLOAT
        if name == "system":
            return _SYSTEM
        if name == "vector":
            return (xmms[:16] if sse_only else ()) + ("mxcsr",) + (() if sse_only else self.vectors())
        if name == "all":
            kmasks = (tuple(f"k{i}" for i in range(8)) if self.avx512 else ()) + ("pkru",) * self.pkru
            return (GENERAL + _FLOAT + (xmms[:16] if sse_only else ()) + ("mxcsr",) + kmasks
                    + (() if sse_only else self.vectors()))  # fmt: skip
        if name == "sse":
            return xmms[:16] + ("mxcsr",) + xmms[16:]
        if name == "mmx":
            return ()  # amd64 has no MMX pseudo registers
        raise MiError(f"Invalid register `{name}'")  # save, restore: gdb's internal groups


class _Described:
    """A machine's groups over gdb's numbers from a description: only the registers it has
    at gdb's fixed numbers, and those it adds beyond them (qemu's cr0, its xmm0-15 outside
    an sse feature) in the general and all groups, where i386_register_reggroup_p puts
    registers it does not know."""

    def __init__(self, machine: _Machine, names: tuple[str, ...]) -> None:
        self.machine = machine
        pseudo = names.index(numbering.FIRST_PSEUDO) if numbering.FIRST_PSEUDO in names else len(names)
        self.pseudo = set(names[pseudo:])
        self.present = set(names[: numbering.FIXED_COUNT]) | self.pseudo
        self.added = names[numbering.FIXED_COUNT : pseudo]

    def group(self, name: str) -> tuple[str, ...]:
        found = tuple(each for each in self.machine.group(name) if each in self.present)
        if name not in ("general", "all") or not self.added:
            return found
        raw = tuple(each for each in found if each not in self.pseudo)
        return raw + self.added + found[len(raw) :]


def _machine(ctx: Context, tid: int) -> _Machine:
    avx, avx512, pkru = vector_extensions(ctx.session, tid)
    return _Machine(avx512, avx, pkru)


def _known(machine: _Machine, name: str) -> bool:
    if name in GENERAL or name in _FLOAT or name in _SYSTEM or name in _USER or name == "mxcsr" or (
        name == "pkru" and machine.pkru
    ):
        return True
    for prefix, count in (("xmm", 32 if machine.avx512 else 16), ("ymm", 32 if machine.avx512 else 16 if machine.avx else 0),
                          ("zmm", 32 if machine.avx512 else 0), ("k", 8 if machine.avx512 else 0)):  # fmt: skip
        number = name[len(prefix):]
        if name.startswith(prefix) and number.isdigit() and str(int(number)) == number and int(number) < count:
            return True
    return _is_pseudo(name)


def _is_pseudo(name: str) -> bool:
    """amd64-tdep.c's dword, word and byte views of the general registers."""
    legacy = ("ax", "bx", "cx", "dx")
    if name in {f"e{r}" for r in (*legacy, "si", "di", "bp", "sp")} | set(legacy) | {"si", "di", "bp"}:
        return True
    if name in {f"{r[0]}{half}" for r in legacy for half in "lh"} | {"sil", "dil", "bpl", "spl"}:
        return True
    return name[:1] == "r" and name[-1:] in ("d", "w", "l") and name[1:-1] in {str(n) for n in range(8, 16)}


def is_register_name(name: str) -> bool:
    """`$name` reads a register on some x86-64 machine (not a convenience variable)."""
    return _known(_Machine(avx512=True, avx=True, pkru=True), name)


def info_registers(ctx: Context, text: str, print_all: bool = False) -> None:
    """`info registers [NAME|GROUP...]` (`print_all`: `info all-registers`)."""
    session = ctx.session
    tid, level = session.selected_frame("The program has no registers now.")
    arch = program_architecture(session.debugger)
    if arch.name != "i386:x86-64":
        described.info_registers(ctx, tid, arch, text, print_all, lambda name: _line(ctx, tid, level, name, None))
        return
    machine = _Described(_machine(ctx, tid), register_names(session))
    numbered = set(register_names(session)) - {""}  # the raw ymmNh, zmmNh... too
    words = text.split()
    if not words:
        names = machine.group("all" if print_all else "general")
    else:
        names = ()
        for word in words:
            name = word[1:] if word.startswith("$") else word
            if not name:
                raise MiError("Missing register name")
            if _known(machine.machine, name) or name in numbered:
                names += (name,)
                continue
            group = next((g for g in _GROUPS if g.startswith(name)), None)
            if group is None:
                raise MiError(f"Invalid register `{name}'")
            names += machine.group(group)
    raw: dict[str, int | bytes | None] | None = None
    for name in names:
        if name in _FLOAT[:8] and raw is None:
            raw = read_raw(session, tid)  # st registers: the same value in every frame
        ctx.console(_line(ctx, tid, level, name, raw))


def info_vector(ctx: Context, text: str) -> None:
    """`info vector`: the vector group."""
    info_registers(ctx, "vector")


def _line(ctx: Context, tid: int, level: int, name: str, raw: dict[str, int | bytes | None] | None) -> str:
    session = ctx.session
    line = name.ljust(_NAME_COLUMN - 1) + " "
    if name in _FLOAT[:8]:
        number = session.evaluate(f"${name}", tid=tid, level=level).value
        data = raw.get(name) if raw is not None else None
        if not isinstance(data, bytes) or number.startswith("<"):
            return line + number + "\n"
        return _pad(line + number) + f"(raw 0x{data[::-1].hex()})\n"
    hexed = session.evaluate(f"${name}", "x", tid=tid, level=level)
    if hexed.type == "void":  # a register the engine cannot present (qemu's SVE p0-p15)
        return line + "<unavailable>\n"
    if hexed.error or hexed.value.startswith("<") or _vector(hexed.value, hexed.type):
        return line + hexed.value + "\n"  # lost in this frame, or a vector alone
    natural = session.evaluate(f"${name}", tid=tid, level=level)
    value = natural.value
    prefix = f"({natural.type}) "
    if value.startswith(prefix):  # gdb's print shows a pointer's type; this column does not
        value = value[len(prefix):]
    return _pad(line + hexed.value) + value + "\n"


def _vector(text: str, type_name: str) -> bool:
    """A vector's value, shown in hex alone: an array (`{0x0, 0x1}`), or a union with one
    among its members (gdb flags a description's such union a vector). A union of scalars
    (aarch64's $q0) shows its natural value too, as do aarch64-tdep.c's own unions
    (`__gdb_builtin_type_vnv`: $v0 over SVE), which gdb does not flag."""
    if not text.startswith("{") or "__gdb_builtin_type_" in type_name:
        return False
    return "{" in text[1:] or " = " not in text


def _pad(text: str) -> str:
    """gdb's pad_to_column: to the natural column, or one space past a longer value."""
    return text.ljust(_NATURAL_COLUMN - 1) + " "
