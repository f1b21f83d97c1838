"""The x86-64 instruction forms real programs have where jump patches go.

A jump patch displaces the first instructions at a breakpoint address; breakpoints go on
function entries and loop lines. This module disassembles, in given ELF files, the first
16 bytes at every function entry (the ELF symbol table's functions; .dynsym when there is
no .symtab) and at every loop line (the target of a backward branch inside a function),
and reduces the instructions to forms: the mnemonic (with its prefixes) and the operand
kinds (register class and size, memory with or without rip, base/index presence, immediate
size, rel8/rel32), keeping one real instance (bytes and address) of each form.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import capstone  # type: ignore[import-untyped, unused-ignore]
from capstone import x86  # type: ignore[import-untyped, unused-ignore]
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

WINDOW = 16  # bytes displaced at most at a patch site
_LONGEST = 15  # the longest x86 instruction
_BRANCH_RELATIVE = 7  # capstone's X86_GRP_BRANCH_RELATIVE
_REGISTER_CLASSES = ("xmm", "ymm", "zmm", "st", "mm", "k", "cr", "dr")


@dataclass(frozen=True, slots=True)
class Instance:
    """One real instruction of a form: its bytes and where they were (link-time)."""

    form: str
    code: bytes
    address: int
    binary: str
    site: str  # "entry" or "loop"


def _register_kind(name: str, size: int) -> str:
    for prefix in _REGISTER_CLASSES:
        if name.startswith(prefix) and (len(name) == len(prefix) or name[len(prefix)].isdigit()):
            return f"{prefix}"
    if name in ("rip", "eip"):
        return "rip"
    if name in ("cs", "ds", "es", "fs", "gs", "ss"):
        return "seg"
    return f"r{size * 8}"


def _displacement(insn: Any, base: int) -> str:
    """d8/d32 from ModRM.mod (capstone's disp_size is wrong after a 66 prefix)."""
    mod = insn.modrm >> 6
    return "d8" if mod == 1 else "d32" if mod == 2 or not base else ""


def _memory_kind(insn: Any, op: Any) -> str:
    mem = op.mem
    inner = "rip" if mem.base == x86.X86_REG_RIP else ""
    if not inner:
        inner += "sp" if mem.base == x86.X86_REG_RSP else "b" if mem.base else ""
        inner += "i" if mem.index else ""
        inner += _displacement(insn, mem.base)
    segment = insn.reg_name(mem.segment) + ":" if mem.segment else ""
    return f"{segment}m{op.size * 8}[{inner}]"


def form_of(insn: Any) -> str:
    """`mnemonic kind, kind...` with the kinds described in the module docstring."""
    kinds = []
    for op in insn.operands:
        if op.type == x86.X86_OP_REG:
            kinds.append(_register_kind(insn.reg_name(op.reg), op.size))
        elif op.type == x86.X86_OP_MEM:
            kinds.append(_memory_kind(insn, op))
        elif _BRANCH_RELATIVE in insn.groups:
            kinds.append(f"rel{insn.imm_size * 8}")
        else:
            kinds.append(f"imm{insn.imm_size * 8}")
    return f"{insn.mnemonic} {', '.join(kinds)}".strip()


def _functions(elf: ELFFile) -> list[tuple[int, int]]:
    table = elf.get_section_by_name(".symtab") or elf.get_section_by_name(".dynsym")
    if not isinstance(table, SymbolTableSection):
        return []
    found = {
        (int(sym["st_value"]), int(sym["st_size"]))
        for sym in table.iter_symbols()
        if sym["st_info"]["type"] == "STT_FUNC"
        and sym["st_size"]
        and sym["st_shndx"] != "SHN_UNDEF"
    }
    return sorted(found)


def _code_segments(elf: ELFFile) -> list[tuple[int, bytes]]:
    return [
        (int(seg["p_vaddr"]), seg.data())
        for seg in elf.iter_segments()
        if seg["p_type"] == "PT_LOAD" and seg["p_flags"] & 1  # PF_X
    ]


def _read(segments: list[tuple[int, bytes]], address: int, size: int) -> bytes:
    for start, data in segments:
        if start <= address < start + len(data):
            return data[address - start : address - start + size]
    return b""


def _loop_lines(lite: capstone.Cs, body: bytes, start: int) -> Iterator[int]:
    """Targets of backward branches inside the function `body` at `start`."""
    for address, _size, mnemonic, operands in lite.disasm_lite(body, start):
        if mnemonic.startswith(("j", "loop")) and operands.startswith("0x"):
            target = int(operands, 16)
            if start <= target <= address:
                yield target


def sites(path: Path) -> Iterator[tuple[str, int, bytes]]:
    """(kind, address, bytes up to the function's end) at every function entry and loop line."""
    lite = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    with path.open("rb") as stream:
        elf = ELFFile(stream)
        segments = _code_segments(elf)
        for start, size in _functions(elf):
            body = _read(segments, start, size)
            if not body:
                continue
            yield "entry", start, body[: WINDOW + _LONGEST]
            for target in sorted(set(_loop_lines(lite, body, start))):
                offset = target - start
                yield "loop", target, body[offset : offset + WINDOW + _LONGEST]


def collect(paths: Iterable[Path]) -> dict[str, Instance]:
    """One instance of every instruction form at the sites of `paths`, by form."""
    decoder = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    decoder.detail = True
    forms: dict[str, Instance] = {}
    for path in paths:
        for kind, address, window in sites(path):
            for insn in decoder.disasm(window, address):
                if insn.address - address >= WINDOW:
                    break
                form = form_of(insn)
                if form not in forms:
                    forms[form] = Instance(form, bytes(insn.bytes), insn.address, path.name, kind)
    return forms


def python_binaries() -> list[Path]:
    """The system python3 (its sys.executable) and its libpython when that is shared."""
    python3 = shutil.which("python3")
    if python3 is None:
        return []
    executable = subprocess.run([python3, "-c", "import sys; print(sys.executable)"],
                                capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    found = [Path(executable).resolve()]
    listing = subprocess.run(["ldd", str(found[0])], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        if "libpython" in line and "=>" in line:
            found.append(Path(line.split("=>")[1].split("(")[0].strip()).resolve())
    return found


def decode_all(code: bytes, address: int) -> list[Any]:
    """The instructions of `code` at `address`, with capstone's details."""
    decoder = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    decoder.detail = True
    return list(decoder.disasm(code, address))


_LEGACY = {
    "a": "rax",
    "b": "rbx",
    "c": "rcx",
    "d": "rdx",
    "si": "rsi",
    "di": "rdi",
    "bp": "rbp",
    "sp": "rsp",
}


def full_register(name: str) -> str:
    """The 64-bit register holding `name` (eax -> rax, r9d -> r9)."""
    if name.startswith("r") and name[1:2].isdigit():
        return name.rstrip("dwb")
    core = name.removeprefix("r").removeprefix("e").removesuffix("x").removesuffix("l")
    return _LEGACY.get(core, name)


def memory_operands(insn: Any) -> list[tuple[str, str, int, int, str]]:
    """(base, index, scale, disp, segment) of each non-rip memory operand ("" for none)."""
    found = []
    for op in insn.operands:
        if op.type != x86.X86_OP_MEM or op.mem.base == x86.X86_REG_RIP:
            continue
        mem = op.mem
        names = [full_register(insn.reg_name(reg)) if reg else "" for reg in (mem.base, mem.index)]
        segment = insn.reg_name(mem.segment) if mem.segment else ""
        found.append((names[0], names[1], mem.scale, mem.disp, segment))
    return found


def _needs_fixing(form: str) -> bool:
    return (
        "[rip]" in form or " rel" in form or form.startswith(("call", "bnd call", "notrack call"))
    )


def spans(paths: Iterable[Path], minimum: int = 5) -> dict[str, Instance]:
    """One instance of every sequence of forms a `minimum`-byte jump displaces at the sites
    of `paths` (whole instructions), among the sequences with something to fix up."""
    decoder = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    decoder.detail = True
    found: dict[str, Instance] = {}
    for path in paths:
        for kind, address, window in sites(path):
            forms, size = [], 0
            for insn in decoder.disasm(window, address):
                forms.append(form_of(insn))
                size += insn.size
                if size >= minimum:
                    break
            key = " ; ".join(forms)
            if size >= minimum and key not in found and any(map(_needs_fixing, forms)):
                found[key] = Instance(key, window[:size], address, path.name, kind)
    return found
