"""Writing an ELF core of a stopped process, as gdb's `gcore` (generate-core-file) does:
one PT_NOTE (NT_PRPSINFO; per thread NT_PRSTATUS, NT_FPREGSET, NT_X86_XSTATE, NT_SIGINFO;
NT_AUXV; NT_FILE) and one PT_LOAD per mapping with the memory that could be read.

The inputs come through CoreImage, so that whoever owns the process (the engine's tracer
thread, which alone may read registers) can feed it; procfs.py builds one from /proc."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO

from aliceserver.debuggers.core import records
from aliceserver.debuggers.core.records import MappedFile, PrPsInfo, PrStatus
from aliceserver.debuggers.core.xsave import standard_xstate
from aliceserver.debuggers.symbols.elfheaders import (
    EHDR_FIELDS,
    EHDR_SIZE,
    EI_NIDENT,
    EM_X86_64,
    ET_CORE,
    PF_R,
    PF_W,
    PF_X,
    PHDR,
    PT_LOAD,
    PT_NOTE,
)

# e_ident: 64-bit, little-endian, version 1, System V ABI.
_IDENT = b"\x7fELF\x02\x01\x01".ljust(EI_NIDENT, b"\0")
PAGE = 4096
_CHUNK = 1 << 20
# Mappings no core holds: the kernel's time data, which faults when read (VM_DONTDUMP).
_NEVER_DUMPED = ("[vvar]", "[vvar_vclock]")


@dataclass(frozen=True, slots=True)
class ThreadImage:
    """One thread's state as ptrace gives it: GETREGS, GETFPREGS (GETREGSET NT_PRFPREG),
    GETREGSET NT_X86_XSTATE and GETSIGINFO, as raw bytes."""

    tid: int
    registers: bytes  # user_regs_struct, 216 bytes
    fpregs: bytes | None = None
    xstate: bytes | None = None
    siginfo: bytes | None = None
    signal: int = 0  # the signal it stopped with, gdb's pr_cursig


@dataclass(frozen=True, slots=True)
class MemoryMapping:
    """A line of /proc/PID/maps."""

    start: int
    end: int
    permissions: str  # "r-xp"
    offset: int
    inode: int
    path: str  # a file, "[stack]", "[heap]", or "" for anonymous memory

    @property
    def flags(self) -> int:
        p = self.permissions
        return (PF_R if "r" in p else 0) | (PF_W if "w" in p else 0) | (PF_X if "x" in p else 0)

    @property
    def file_backed(self) -> bool:
        return self.inode != 0 and self.path.startswith("/")


@dataclass(frozen=True)
class CoreImage:
    """All a core is written from. `threads[0]` is the thread gdb will select first."""

    process: PrPsInfo
    threads: Sequence[ThreadImage]
    mappings: Sequence[MemoryMapping]
    read_memory: Callable[[int, int], bytes]  # raises OSError where it cannot read
    auxv: bytes = b""


@dataclass
class WrittenCore:
    path: str
    size: int
    warnings: list[str] = field(default_factory=list)  # gdb's words, without "warning: "


def write_core(path: str, image: CoreImage) -> WrittenCore:
    """Write `image` as an ELF core at `path` (replaced if it exists)."""
    dumped = [m for m in image.mappings if m.path not in _NEVER_DUMPED]
    notes = _notes(image)
    phnum = 1 + len(dumped)
    notes_at = EHDR_SIZE + phnum * PHDR.size
    data_at = _align(notes_at + len(notes), PAGE)
    written = WrittenCore(path, 0)
    headers: list[bytes] = [PHDR.pack(PT_NOTE, 0, notes_at, 0, 0, len(notes), 0, 4)]
    with open(path, "wb") as out:
        out.seek(data_at)
        for mapping in dumped:
            offset = out.tell()
            filesz = _copy_mapping(out, mapping, image.read_memory, written.warnings)
            headers.append(PHDR.pack(PT_LOAD, mapping.flags, offset, mapping.start, 0, filesz,
                                     mapping.end - mapping.start, PAGE))  # fmt: skip
        end = out.tell()
        out.truncate(end)  # holes left by all-zero pages at the end still count
        out.seek(0)
        out.write(_IDENT + EHDR_FIELDS.pack(ET_CORE, EM_X86_64, 1, 0, EHDR_SIZE, 0, 0, EHDR_SIZE,
                                            PHDR.size, phnum, 0, 0, 0))  # fmt: skip
        out.write(b"".join(headers))
        out.write(notes)
    written.size = end
    return written


def _copy_mapping(
    out: BinaryIO, mapping: MemoryMapping, read: Callable[[int, int], bytes], warnings: list[str]
) -> int:
    """Copy the mapping's memory at the file's position; the bytes written (0 when none
    could be read: gdb's "Memory read failed for corefile section")."""
    if "r" not in mapping.permissions and "x" not in mapping.permissions:
        return 0  # a guard page: its size is in p_memsz, its bytes nowhere (as the kernel does)
    start = out.tell()
    address = mapping.start
    while address < mapping.end:
        size = min(_CHUNK, mapping.end - address)
        try:
            data = read(address, size)
        except (OSError, OverflowError):  # [vsyscall] lies past the offsets pread takes
            data = b""
        if len(data) < size and address == mapping.start:
            warnings.append(f"Memory read failed for corefile section, {mapping.end - mapping.start} bytes at "
                            f"{mapping.start:#x}.")  # fmt: skip
            out.seek(start)
            return 0
        _write_sparse(out, data.ljust(size, b"\0"))
        address += size
    return out.tell() - start


def _write_sparse(out: BinaryIO, data: bytes) -> None:
    """Write `data`, seeking over its all-zero pages so that the core stays sparse."""
    zero = bytes(PAGE)
    for at in range(0, len(data), PAGE):
        page = data[at : at + PAGE]
        if page == zero[: len(page)]:
            out.seek(len(page), os.SEEK_CUR)
        else:
            out.write(page)


def _notes(image: CoreImage) -> bytes:
    process = image.process
    parts = [records.encode_note("CORE", records.NT_PRPSINFO, process.encode())]
    for thread in image.threads:
        status = PrStatus(
            thread.tid, thread.signal, thread.registers, process.ppid, process.pgrp, process.sid
        )
        parts.append(records.encode_note("CORE", records.NT_PRSTATUS, status.encode()))
        if thread.fpregs is not None:
            parts.append(records.encode_note("CORE", records.NT_PRFPREG, thread.fpregs))
        if thread.xstate is not None:
            parts.append(
                records.encode_note("LINUX", records.NT_X86_XSTATE, standard_xstate(thread.xstate))
            )
        if thread.siginfo is not None:
            parts.append(records.encode_note("CORE", records.NT_SIGINFO, thread.siginfo))
    if image.auxv:
        parts.append(records.encode_note("CORE", records.NT_AUXV, image.auxv))
    files = [MappedFile(m.start, m.end, m.offset, m.path) for m in image.mappings if m.file_backed]
    parts.append(records.encode_note("CORE", records.NT_FILE, records.encode_file_note(files)))
    return b"".join(parts)


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment
