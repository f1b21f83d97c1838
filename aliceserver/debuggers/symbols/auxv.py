"""The ELF auxiliary vector (Elf64_auxv_t pairs), as found in /proc/PID/auxv."""

from __future__ import annotations

import struct

from aliceserver.errors import TargetError

AT_NULL = 0
AT_PHDR = 3  # runtime address of the program headers: gives the main program's load bias
AT_PHENT = 4
AT_PHNUM = 5
AT_PAGESZ = 6
AT_BASE = 7  # load address of the dynamic loader
AT_FLAGS = 8
AT_ENTRY = 9  # runtime entry point of the program
AT_UID = 11
AT_EUID = 12
AT_GID = 13
AT_EGID = 14
AT_PLATFORM = 15
AT_HWCAP = 16
AT_CLKTCK = 17
AT_SECURE = 23
AT_RANDOM = 25
AT_HWCAP2 = 26
AT_EXECFN = 31  # address of the executable's file name string
AT_SYSINFO_EHDR = 33  # address of the vDSO's ELF header

AUXV_ENTRY = struct.Struct("<QQ")  # a_type, a_val (struct: construct is slow to import)


def parse_auxv(data: bytes) -> dict[int, int]:
    """Type -> value for each entry up to AT_NULL; a trailing partial entry is ignored.

    The first occurrence of a type wins (the kernel never repeats one).
    """
    usable = len(data) - len(data) % AUXV_ENTRY.size
    result: dict[int, int] = {}
    for a_type, a_val in AUXV_ENTRY.iter_unpack(bytes(data[:usable])):
        if a_type == AT_NULL:
            break
        result.setdefault(a_type, a_val)
    return result


def read_auxv(pid: int) -> dict[int, int]:
    """The auxiliary vector of process `pid` (needs ptrace-read access to it)."""
    path = f"/proc/{pid}/auxv"
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError as exc:
        raise TargetError(
            f"cannot read the auxiliary vector of {pid}: {exc.strerror or exc}",
            errno=exc.errno,
            pid=pid,
        ) from exc
    if not data:
        # A zombie or a kernel thread has none; without it we cannot find the program.
        raise TargetError(f"process {pid} has an empty auxiliary vector", pid=pid)
    return parse_auxv(data)
