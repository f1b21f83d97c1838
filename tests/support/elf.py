"""Independent views of a test binary: ELF symbols (pyelftools), objdump, /proc maps."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection


def symbol_value(path: Path, name: str) -> int:
    """Link-time address (st_value) of `name` in the executable's .symtab."""
    with path.open("rb") as stream:
        elf = ELFFile(stream)
        table = elf.get_section_by_name(".symtab")
        if not isinstance(table, SymbolTableSection):
            raise LookupError(f"{path.name} has no .symtab")
        symbols = table.get_symbol_by_name(name) or []
        if not symbols:
            raise LookupError(f"{path.name} has no symbol {name}")
        return int(symbols[0]["st_value"])


def symbol_size(path: Path, name: str) -> int:
    with path.open("rb") as stream:
        table = ELFFile(stream).get_section_by_name(".symtab")
        assert isinstance(table, SymbolTableSection)
        symbols = table.get_symbol_by_name(name) or []
        if not symbols:
            raise LookupError(f"{path.name} has no symbol {name}")
        return int(symbols[0]["st_size"])


def entry_point(path: Path) -> int:
    """e_entry (link-time)."""
    with path.open("rb") as stream:
        return int(ELFFile(stream).header["e_entry"])


def is_pie(path: Path) -> bool:
    with path.open("rb") as stream:
        return bool(ELFFile(stream).header["e_type"] == "ET_DYN")


def file_bytes(path: Path, vaddr: int, size: int) -> bytes:
    """The bytes a PT_LOAD segment maps at link-time address `vaddr`."""
    with path.open("rb") as stream:
        elf = ELFFile(stream)
        for segment in elf.iter_segments():
            if segment["p_type"] != "PT_LOAD":
                continue
            start = segment["p_vaddr"]
            if start <= vaddr and vaddr + size <= start + segment["p_filesz"]:
                stream.seek(segment["p_offset"] + vaddr - start)
                return stream.read(size)
    raise LookupError(f"{vaddr:#x}+{size} is not file-backed in {path.name}")


def load_base(pid: int, path: Path) -> int:
    """Load bias of the executable `path` in process `pid` (0 for non-PIE), from /proc maps."""
    if not is_pie(path):
        return 0
    real = str(path.resolve())
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and parts[5] == real and int(parts[2], 16) == 0:
            return int(parts[0].split("-")[0], 16)
    raise LookupError(f"{path.name} is not mapped in process {pid}")


@dataclass(frozen=True)
class ObjdumpInsn:
    address: int  # link-time
    raw: bytes
    mnemonic: str
    operands: str


_LINE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+)\t(\S+)\s*(.*)$")


def objdump_function(path: Path, name: str) -> list[ObjdumpInsn]:
    """objdump -d -M intel of one function (prefix-free lines only)."""
    objdump = shutil.which("objdump")
    if objdump is None:
        raise FileNotFoundError("objdump not found")
    out = subprocess.run(
        [objdump, "-d", "-w", "-M", "intel", f"--disassemble={name}", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    insns: list[ObjdumpInsn] = []
    for line in out.splitlines():
        match = _LINE.match(line)
        if match:
            address, raw, mnemonic, operands = match.groups()
            operands = operands.split("#")[0].strip()  # drop objdump's "# 4010 <sym>" notes
            insns.append(
                ObjdumpInsn(
                    int(address, 16), bytes.fromhex(raw.replace(" ", "")), mnemonic, operands
                )
            )
    if not insns:
        raise LookupError(f"objdump found no function {name} in {path.name}")
    return insns
