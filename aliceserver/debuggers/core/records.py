"""The payloads of an x86-64 Linux core's notes, read and written: NT_PRSTATUS (struct
elf_prstatus), NT_PRPSINFO (struct elf_prpsinfo), NT_SIGINFO (siginfo_t), NT_FILE, and the
note framing written (Elf64_Nhdr, name and descriptor padded to 4 bytes as Linux writes them;
symbols/elfheaders reads it). The layouts are the kernel's (include/uapi/linux/elfcore.h, arch/x86 user_regs_struct)."""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aliceserver.debuggers.symbols.elfheaders import NHDR

NT_PRSTATUS = 1
NT_PRFPREG = 2  # NT_FPREGSET: the FXSAVE area, 512 bytes
NT_PRPSINFO = 3
NT_AUXV = 6
NT_X86_XSTATE = 0x202
NT_SIGINFO = 0x53494749
NT_FILE = 0x46494C45

# user_regs_struct, in its order: the names our engine and gdb give them.
REGISTER_NAMES: tuple[str, ...] = (
    "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
    "rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags",
    "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs",
)  # fmt: skip
_GREGS = struct.Struct("<27Q")
GREGS_SIZE = _GREGS.size  # 216

# struct elf_prstatus: elf_siginfo, cursig, sigpend, sighold, pid, ppid, pgrp, sid, four
# timevals, then pr_reg at 112 and pr_fpvalid at 328.
_PRSTATUS_HEAD = struct.Struct("<iiih2xQQiiii64x")
_PRSTATUS_REG_OFFSET = 112
PRSTATUS_SIZE = 336
# struct elf_prpsinfo: state, sname, zomb, nice, flag, uid, gid, pid, ppid, pgrp, sid,
# fname[16], psargs[80].
_PRPSINFO = struct.Struct("<bcbb4xQIIiiii16s80s")
SIGINFO_SIZE = 128


def registers_from_bytes(data: bytes) -> dict[str, int]:
    """user_regs_struct's 27 words by name."""
    return dict(zip(REGISTER_NAMES, _GREGS.unpack_from(data), strict=True))


def registers_to_bytes(values: Mapping[str, int]) -> bytes:
    """user_regs_struct from names; a register left out is zero."""
    mask = (1 << 64) - 1
    return _GREGS.pack(*(values.get(name, 0) & mask for name in REGISTER_NAMES))


@dataclass(frozen=True, slots=True)
class PrStatus:
    """One thread's NT_PRSTATUS: its id, the signal it stopped with, its general registers."""

    tid: int
    signal: int  # pr_cursig: the signal being delivered, 0 for a thread that had none
    registers: bytes  # user_regs_struct, GREGS_SIZE bytes
    ppid: int = 0
    pgrp: int = 0
    sid: int = 0
    pending: int = 0  # pr_sigpend
    held: int = 0  # pr_sighold: the blocked signals

    @staticmethod
    def decode(desc: bytes) -> PrStatus:
        if len(desc) < _PRSTATUS_REG_OFFSET + GREGS_SIZE:
            raise ValueError(f"NT_PRSTATUS of {len(desc)} bytes")
        _signo, _code, _errno, cursig, pending, held, pid, ppid, pgrp, sid = (
            _PRSTATUS_HEAD.unpack_from(desc)
        )
        registers = desc[_PRSTATUS_REG_OFFSET : _PRSTATUS_REG_OFFSET + GREGS_SIZE]
        return PrStatus(pid, cursig, bytes(registers), ppid, pgrp, sid, pending, held)

    def encode(self) -> bytes:
        head = _PRSTATUS_HEAD.pack(self.signal, 0, 0, self.signal, self.pending, self.held,
                                   self.tid, self.ppid, self.pgrp, self.sid)  # fmt: skip
        fpvalid = (1).to_bytes(4, "little")
        return (head + self.registers.ljust(GREGS_SIZE, b"\0")[:GREGS_SIZE] + fpvalid).ljust(
            PRSTATUS_SIZE, b"\0"
        )


@dataclass(frozen=True, slots=True)
class PrPsInfo:
    """NT_PRPSINFO: the process and the command that started it (`ps` columns)."""

    pid: int
    name: str  # pr_fname: the program's file name, 15 characters at most
    arguments: str  # pr_psargs: the command line, 80 bytes at most, arguments space-separated
    ppid: int = 0
    pgrp: int = 0
    sid: int = 0
    uid: int = 0
    gid: int = 0
    state: str = "R"  # pr_sname
    nice: int = 0
    flags: int = 0

    @staticmethod
    def decode(desc: bytes) -> PrPsInfo:
        if len(desc) < _PRPSINFO.size:
            raise ValueError(f"NT_PRPSINFO of {len(desc)} bytes")
        (_state, sname, _zomb, nice, flags, uid, gid, pid, ppid, pgrp, sid, fname,
         psargs) = _PRPSINFO.unpack_from(desc)  # fmt: skip
        return PrPsInfo(pid, _c_string(fname), _c_string(psargs).rstrip(), ppid, pgrp, sid, uid, gid,
                        sname.decode("latin-1").strip("\0") or "R", nice, flags)  # fmt: skip

    def encode(self) -> bytes:
        sname = self.state[:1] or "R"
        state_number = "RSDTZW".find(sname)
        return _PRPSINFO.pack(max(state_number, 0), sname.encode("latin-1"), int(sname == "Z"), self.nice,
                              self.flags, self.uid, self.gid, self.pid, self.ppid, self.pgrp, self.sid,
                              self.name.encode(errors="surrogateescape")[:15],
                              self.arguments.encode(errors="surrogateescape")[:80])  # fmt: skip


@dataclass(frozen=True, slots=True)
class SignalInfo:
    """NT_SIGINFO's siginfo_t: what gdb shows as `$_siginfo`."""

    signo: int
    errno: int
    code: int
    raw: bytes  # all 128 bytes, for the fields this class does not name

    @property
    def fault_address(self) -> int:
        """si_addr: meaningful for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP."""
        return int.from_bytes(self.raw[16:24], "little")

    @property
    def sender_pid(self) -> int:
        """si_pid, for a signal sent with kill() (si_code <= 0)."""
        return int.from_bytes(self.raw[16:20], "little", signed=True)

    @staticmethod
    def decode(desc: bytes) -> SignalInfo:
        if len(desc) < 16:
            raise ValueError(f"NT_SIGINFO of {len(desc)} bytes")
        signo, errno, code = struct.unpack_from("<iii", desc)
        return SignalInfo(signo, errno, code, bytes(desc[:SIGINFO_SIZE]).ljust(SIGINFO_SIZE, b"\0"))


@dataclass(frozen=True, slots=True)
class MappedFile:
    """One NT_FILE entry: [start, end) of the address space maps `path` from `offset`."""

    start: int
    end: int
    offset: int  # in bytes (NT_FILE stores pages)
    path: str

    def __contains__(self, address: int) -> bool:
        return self.start <= address < self.end


def decode_file_note(desc: bytes) -> list[MappedFile]:
    """NT_FILE: count, page size, count (start, end, page offset) triples, count names."""
    count, page_size = struct.unpack_from("<QQ", desc)
    triples_end = 16 + 24 * count
    if triples_end > len(desc):
        raise ValueError(f"NT_FILE of {len(desc)} bytes announces {count} files")
    names = desc[triples_end:].split(b"\0")
    if len(names) < count:
        raise ValueError(f"NT_FILE names {len(names)} of its {count} files")
    return [MappedFile(start, end, page * page_size, names[i].decode("utf-8", "surrogateescape"))
            for i, (start, end, page) in enumerate(struct.iter_unpack("<QQQ", desc[16:triples_end]))]  # fmt: skip


def encode_file_note(files: Sequence[MappedFile], page_size: int = 4096) -> bytes:
    head = struct.pack("<QQ", len(files), page_size)
    triples = b"".join(struct.pack("<QQQ", f.start, f.end, f.offset // page_size) for f in files)
    names = b"".join(f.path.encode("utf-8", "surrogateescape") + b"\0" for f in files)
    return head + triples + names


def encode_note(owner: str, note_type: int, desc: bytes) -> bytes:
    name = owner.encode() + b"\0"
    header = NHDR.pack(len(name), len(desc), note_type)
    return header + name.ljust(_align4(len(name)), b"\0") + desc.ljust(_align4(len(desc)), b"\0")


def _align4(value: int) -> int:
    return (value + 3) & ~3


def _c_string(data: bytes) -> str:
    return data.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
