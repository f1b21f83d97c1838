"""Opening an x86-64 Linux ELF core (ET_CORE): its threads, process, signal, auxiliary
vector, mapped files and memory, with gdb's words for what it refuses."""

from __future__ import annotations

import logging
import os
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import TracebackType

from aliceserver.debuggers.core import records
from aliceserver.debuggers.core.buildid import build_id, file_build_id
from aliceserver.debuggers.core.errors import no_handler, not_a_core
from aliceserver.debuggers.core.memory import CoreMemory, FileSources, Region, zeros
from aliceserver.debuggers.core.records import MappedFile, PrPsInfo, PrStatus, SignalInfo
from aliceserver.debuggers.core.threads import CoreThread
from aliceserver.debuggers.symbols.auxv import AT_ENTRY, AT_PHDR, parse_auxv
from aliceserver.debuggers.symbols.elfheaders import (
    EHDR_SIZE,
    EM_X86_64,
    ET_CORE,
    PHDR,
    PT_LOAD,
    PT_NOTE,
    ElfClass,
    MalformedElf,
    Note,
    classify,
    iter_notes,
    read_at,
    read_header,
    read_segments,
)
from aliceserver.errors import TargetError

_log = logging.getLogger(__name__)
_MAX_NOTES = 64 << 20  # a core of thousands of threads still has far fewer note bytes


@dataclass(frozen=True, slots=True)
class Segment:
    """A PT_LOAD of the core: [address, address + memsz) with filesz bytes at offset."""

    address: int
    memsz: int
    offset: int
    filesz: int
    flags: int  # PF_X 1, PF_W 2, PF_R 4


@dataclass
class CoreFile:
    """An opened core. `read(address, size)` reads its memory; `threads[0]` is the thread
    gdb selects first (the one that took the signal, for the kernel's cores)."""

    path: str
    threads: tuple[CoreThread, ...]
    process: PrPsInfo | None
    auxv: Mapping[int, int]
    auxv_bytes: bytes
    mapped_files: tuple[MappedFile, ...]
    segments: tuple[Segment, ...]
    memory: CoreMemory
    warnings: list[str] = field(default_factory=list)  # gdb's "warning: ..." texts, unprefixed
    _files: FileSources = field(default_factory=FileSources, repr=False)

    def read(self, address: int, size: int) -> bytes:
        """`size` bytes at `address`; CoreMemoryError ("Cannot access memory at address
        0x...") at the first byte neither the core nor a mapped file holds."""
        return self.memory.read(address, size)

    @property
    def signal(self) -> int:
        """The signal that ended the program (gdb's "Program terminated with signal")."""
        return self.threads[0].signal if self.threads else 0

    @property
    def siginfo(self) -> SignalInfo | None:
        return self.threads[0].siginfo if self.threads else None

    @property
    def executable_path(self) -> str | None:
        """The main program's path as the core maps it (NT_FILE entry holding AT_PHDR)."""
        found = self._executable_mapping()
        return found.path if found else None

    @property
    def executable_base(self) -> int | None:
        """Where the main program's ELF header is mapped."""
        found = self._executable_mapping()
        if found is None:
            return None
        heads = [f for f in self.mapped_files if f.path == found.path and f.offset == 0]
        return min((f.start for f in heads), default=found.start - found.offset)

    def build_id(self) -> str | None:
        """The build id of the main program the core was made from, read from its mapped
        first page (or the mapped file when the core left that page out)."""
        base = self.executable_base
        return None if base is None else build_id(self.read, base, in_memory=True)

    def executable_warnings(self, executable: str) -> list[str]:
        """gdb's warnings for the program the user names with this core: "core file may not
        match specified executable file." unless their build ids agree or its file name is
        the core's program name (bfd's elf core_file_matches_executable_p), else "exec file
        is newer than core file." by modification time (gdb's validate_files)."""
        core_id, program_id = self.build_id(), file_build_id(executable)
        same_build = core_id is not None and core_id == program_id
        name = self.process.name if self.process else None
        if not same_build and name is not None and os.path.basename(executable) != name:
            return ["core file may not match specified executable file."]
        try:
            if int(os.stat(executable).st_mtime) > int(
                os.stat(self.path).st_mtime
            ):  # whole seconds, as bfd
                return ["exec file is newer than core file."]
        except OSError:
            pass
        return []

    def thread(self, tid: int) -> CoreThread:
        for each in self.threads:
            if each.tid == tid:
                return each
        raise KeyError(tid)

    def close(self) -> None:
        self._files.close()

    def __enter__(self) -> CoreFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:  # fmt: skip
        self.close()

    def _executable_mapping(self) -> MappedFile | None:
        for key in (AT_PHDR, AT_ENTRY):
            address = self.auxv.get(key)
            for mapped in self.mapped_files:
                if address is not None and address in mapped:
                    return mapped
        return None


def open_core(path: str) -> CoreFile:
    """Open the core at `path`. CoreFormatError with gdb's words for anything but an
    x86-64 ELF core; TargetError ("PATH: No such file or directory.") when it cannot be read."""
    try:
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            segments, notes = _read_layout(path, stream.fileno())
    except OSError as error:
        raise TargetError(f"{path}: {error.strerror}.", errno=error.errno) from None
    threads, process, auxv_bytes, files = _read_notes(path, notes)
    warnings: list[str] = []
    if any(s.offset + s.filesz > size for s in segments):
        warnings.append(f"{path} has a segment extending past end of file")
    sources = FileSources()
    memory = _build_memory(path, size, segments, files, sources, warnings)
    return CoreFile(path, threads, process, parse_auxv(auxv_bytes), auxv_bytes, tuple(files), tuple(segments),
                    memory, warnings, sources)  # fmt: skip


def _read_layout(path: str, fd: int) -> tuple[list[Segment], list[bytes]]:
    """The core's PT_LOADs and the bytes of its PT_NOTEs; gdb's words for anything else."""
    head = os.pread(fd, EHDR_SIZE, 0)
    if classify(head) is not ElfClass.ELF64_LSB:
        raise not_a_core(path)
    segments: list[Segment] = []
    notes: list[bytes] = []
    try:
        header = read_header(fd, head)
        if header.type != ET_CORE:
            raise not_a_core(path)
        if header.machine != EM_X86_64:
            raise no_handler(path)
        if header.phentsize != PHDR.size or header.phnum == 0:
            raise not_a_core(path)
        for each in read_segments(fd, header):
            if each.type == PT_LOAD:
                segments.append(Segment(each.vaddr, each.memsz, each.offset, each.filesz, each.flags))
            elif each.type == PT_NOTE:
                if each.filesz > _MAX_NOTES:
                    raise not_a_core(path)
                notes.append(read_at(fd, header, each.offset, each.filesz))
    except MalformedElf:  # a table or notes cut off: bfd refuses such a core
        raise not_a_core(path) from None
    return segments, notes


def _read_notes(
    path: str, segments: Sequence[bytes]
) -> tuple[tuple[CoreThread, ...], PrPsInfo | None, bytes, list[MappedFile]]:
    """Each NT_PRSTATUS starts a thread; the FPREGSET, XSTATE and SIGINFO notes after it are
    that thread's (as bfd reads them). The others describe the process."""
    threads: list[CoreThread] = []
    process: PrPsInfo | None = None
    auxv = b""
    files: list[MappedFile] = []
    try:
        for data in segments:
            for note in iter_notes(data):
                if note.type == records.NT_PRSTATUS and note.owner == "CORE":
                    status = PrStatus.decode(note.desc)
                    threads.append(CoreThread(status.tid, status.signal, status))
                elif note.type == records.NT_PRPSINFO and note.owner == "CORE":
                    process = PrPsInfo.decode(note.desc)
                elif note.type == records.NT_AUXV and note.owner == "CORE":
                    auxv = note.desc
                elif note.type == records.NT_FILE and note.owner == "CORE":
                    files = records.decode_file_note(note.desc)
                elif threads and note.type in _THREAD_NOTES:
                    threads[-1] = _with_note(threads[-1], note)
    except (ValueError, struct.error) as error:
        _log.info("%s: damaged notes: %s", path, error)
        raise not_a_core(path) from None
    return tuple(threads), process, auxv, files


_THREAD_NOTES = (records.NT_PRFPREG, records.NT_X86_XSTATE, records.NT_SIGINFO)


def _with_note(thread: CoreThread, note: Note) -> CoreThread:
    if note.type == records.NT_PRFPREG:
        return replace(thread, fpregs=note.desc)
    if note.type == records.NT_X86_XSTATE:
        return replace(thread, xstate=note.desc)
    return replace(thread, siginfo=SignalInfo.decode(note.desc))


def _build_memory(
    path: str, size: int, segments: Sequence[Segment], files: Sequence[MappedFile], sources: FileSources,
    warnings: list[str],
) -> CoreMemory:  # fmt: skip
    core = sources.source(path)
    held = [
        Region(s.address, s.address + min(s.filesz, max(size - s.offset, 0)), s.offset, core)
        for s in segments
    ]
    mapped: list[Region] = []
    for each in files:
        if not sources.can_open(each.path):
            warning = f"Can't open file {each.path} which was expanded to {each.path} during file-backed mapping note processing"
            if warning not in warnings:
                warnings.append(warning)
            continue
        mapped.append(Region(each.start, each.end, each.offset, sources.source(each.path)))
    rest = [
        Region(s.address + s.filesz, s.address + s.memsz, 0, zeros)
        for s in segments
        if s.memsz > s.filesz
    ]
    return CoreMemory([held, mapped, rest])
