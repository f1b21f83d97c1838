"""A core's shared library that the loader found by a relative name (an rpath of `.`):
the link map names it `./libNAME.so`, relative to the program's working directory when it
ran. The file it was is the core's own NT_FILE mapping at its dynamic section, never
whatever process holds the core's pid by now (a live process's /proc/PID/maps)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from tests.support.batch import ex, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.cores import kernel_core, paused_program, require_gdb

pytestmark = pytest.mark.timeout(180)

NT_PRPSINFO = 3
_PR_PID = 24  # elf_prpsinfo: state, sname, zomb, nice, 4 bytes of padding, flag, uid, gid, pid


def _with_pid(core: Path, pid: int, out: Path) -> Path:
    """`core` with its process's pid (NT_PRPSINFO pr_pid) made `pid`: as when the kernel
    has given the dead process's pid to another one."""
    data = bytearray(core.read_bytes())
    phoff, phentsize, phnum = struct.unpack_from("<Q", data, 0x20)[0], *struct.unpack_from("<HH", data, 0x36)
    for index in range(phnum):
        kind, _flags, offset, _vaddr, _paddr, size = struct.unpack_from("<IIQQQQ", data, phoff + index * phentsize)
        at, end = offset, offset + size
        while kind == 4 and at + 12 <= end:  # PT_NOTE: Elf64_Nhdr, name and desc padded to 4
            namesz, descsz, note = struct.unpack_from("<III", data, at)
            desc = at + 12 + (namesz + 3) // 4 * 4
            if note == NT_PRPSINFO:
                struct.pack_into("<i", data, desc + _PR_PID, pid)
                out.write_bytes(bytes(data))
                return out
            at = desc + (descsz + 3) // 4 * 4
    raise AssertionError(f"{core}: no NT_PRPSINFO")


def test_a_relative_library_is_the_one_the_core_mapped(builder: Builder, tmp_path: Path) -> None:
    """The core's pid given to a live run of the same program, its own `./libsolibrel.so`
    (another file) mapped at the same address (no ASLR for either): the core's library is
    still the crashed run's, named as gdb names it from that run's directory."""
    require_gdb()
    setarch = shutil.which("setarch")
    if setarch is None:
        pytest.skip("no setarch: the two runs need the same addresses (setarch -R)")
    crashed, other = tmp_path / "crashed", tmp_path / "other"
    library = builder.build("lib_solib", extra=["-shared", "-fPIC"])
    for where in (crashed, other):
        where.mkdir()
        shutil.copy(library, where / "libsolibrel.so")
    program = builder.build("core_dump", extra=["-pthread", "-Wl,--no-as-needed", f"-L{crashed}", "-lsolibrel",
                                                "-Wl,-rpath,."])  # fmt: skip
    core = kernel_core(Path(setarch), ["-R", str(program), "libc"], crashed)
    with paused_program(Path(setarch), ["-R", str(program), "pause"], cwd=other) as pid:
        reused = _with_pid(core, pid, crashed / "reused.core")
        args = ["-batch", "-nx", *ex("info sharedlibrary", "p solib_step"), str(program), str(reused)]
        # stdout: gdb warns on stderr of the kernel's XSAVE notes on AVX-512 machines
        got, expected = normalized(ours(args, crashed).stdout), normalized(theirs(args, crashed).stdout)
    assert got == expected
    assert "Yes         ./libsolibrel.so" in got and "<solib_step>" in got
