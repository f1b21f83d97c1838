"""Our writer's core of a made-up process, read back: notes, threads, memory layers; and
what is no core refused in gdb's words, never with a crash."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.core import CoreFormatError, CoreMemoryError, open_core
from aliceserver.debuggers.core.records import REGISTER_NAMES, registers_from_bytes
from aliceserver.debuggers.symbols.auxv import AT_ENTRY
from aliceserver.errors import TargetError
from tests.support.synthetic_core import (
    DATA,
    GUARD,
    STACK,
    STACK_SIZE,
    make_core,
    memory_of,
)


@pytest.fixture
def core_path(tmp_path: Path) -> Path:
    path = tmp_path / "synthetic.core"
    make_core(path, tmp_path / "mapped.bin")
    return path


def test_threads_process_and_signal(core_path: Path) -> None:
    with open_core(str(core_path)) as core:
        assert [t.tid for t in core.threads] == [100, 101]
        first, second = core.threads
        assert (first.registers["rip"], first.registers["rsp"], first.registers["eflags"]) == (
            0x401000,
            STACK + 0x100,
            0x246,
        )
        assert second.registers["fs_base"] == 0x7000 and list(second.registers) == list(
            REGISTER_NAMES
        )
        assert core.signal == 11 and second.signal == 0
        assert core.siginfo is not None
        assert (core.siginfo.signo, core.siginfo.code, core.siginfo.fault_address) == (
            11,
            1,
            0xDEAD,
        )
        assert second.siginfo is None and second.fpregs is None
        vectors = first.vector_registers()
        assert vectors is not None and vectors.xmm[0] == bytes(range(160, 176))
        assert vectors.ymm == () and second.vector_registers() is None
        assert core.process is not None
        assert (core.process.pid, core.process.name, core.process.arguments) == (
            100,
            "synthetic",
            "synthetic --flag",
        )
        assert (core.process.uid, core.process.gid) == (1000, 1000)
        assert core.auxv == {AT_ENTRY: 0x401000}
        assert core.thread(101) is second
        with pytest.raises(KeyError):
            core.thread(7)


def test_memory_from_the_core_the_mapped_file_and_zeros(core_path: Path, tmp_path: Path) -> None:
    with open_core(str(core_path)) as core:
        assert core.read(STACK + 0xFF0, 0x20) == bytes(
            memory_of(a) for a in range(STACK + 0xFF0, STACK + 0x1010)
        )
        # The core holds the data mapping, so the file under it is not read.
        assert core.read(DATA, 16) == bytes(memory_of(a) for a in range(DATA, DATA + 16))
        assert core.read(GUARD, 8) == bytes(
            8
        )  # a guard page: in p_memsz only, reads as zeros (gdb)
        with pytest.raises(
            CoreMemoryError, match=f"^Cannot access memory at address {STACK + STACK_SIZE:#x}$"
        ):
            core.read(STACK + STACK_SIZE - 4, 8)
        with pytest.raises(CoreMemoryError) as error:
            core.read(0x10, 1)
        assert error.value.address == 0x10 and isinstance(error.value, TargetError)
        assert [(f.start, f.offset, f.path) for f in core.mapped_files] == [
            (DATA, 0x1000, str(tmp_path / "mapped.bin"))
        ]


def test_a_region_the_core_lost_is_read_from_the_mapped_file(
    core_path: Path, tmp_path: Path
) -> None:
    """Truncate the core inside the data segment: the file mapped there fills in, as gdb 13
    reads the text a kernel core leaves out."""
    with open_core(str(core_path)) as core:
        data = next(s for s in core.segments if s.address == DATA)
    os.truncate(core_path, data.offset + 0x10)
    with open_core(str(core_path)) as core:
        assert core.warnings == [f"{core_path} has a segment extending past end of file"]
        assert core.read(DATA, 0x10) == bytes(memory_of(a) for a in range(DATA, DATA + 0x10))
        mapped = (tmp_path / "mapped.bin").read_bytes()
        assert core.read(DATA + 0x10, 0x20) == mapped[0x1010:0x1030]
        with pytest.raises(CoreMemoryError):
            core.read(STACK, 8)  # beyond the end of the core, no file maps it


def test_a_missing_mapped_file_is_warned_about(core_path: Path, tmp_path: Path) -> None:
    (tmp_path / "mapped.bin").unlink()
    with open_core(str(core_path)) as core:
        assert core.warnings == [
            f"Can't open file {tmp_path / 'mapped.bin'} which was expanded to {tmp_path / 'mapped.bin'} "
            "during file-backed mapping note processing"
        ]
        assert core.read(DATA, 4) == bytes(memory_of(a) for a in range(DATA, DATA + 4))


def test_registers_keep_the_kernel_layout() -> None:
    raw = struct.pack("<27Q", *range(27))
    values = registers_from_bytes(raw)
    assert (values["r15"], values["rip"], values["gs"]) == (0, 16, 26)


def test_register_names_are_the_engines() -> None:
    from aliceserver.debuggers.ptrace.binding import REGISTER_NAMES as ENGINE_NAMES

    assert REGISTER_NAMES == ENGINE_NAMES


def _refused(path: Path) -> str:
    with pytest.raises(CoreFormatError) as error:
        open_core(str(path))
    return str(error.value)


@pytest.mark.parametrize(
    "content",
    [b"", b"\x7fEL", os.urandom(64), b"garbage" * 100],
    ids=["empty", "short", "random", "text"],
)
def test_garbage_is_not_a_core(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x"
    path.write_bytes(content)
    assert _refused(path) == f'"{path}" is not a core dump: file format not recognized'


def test_an_executable_is_not_a_core(tmp_path: Path) -> None:
    path = tmp_path / "program"
    path.write_bytes(Path("/proc/self/exe").read_bytes()[:4096])
    assert _refused(path) == f'"{path}" is not a core dump: file format not recognized'


def test_a_core_of_another_machine_has_no_handler(core_path: Path) -> None:
    data = bytearray(core_path.read_bytes())
    data[18:20] = (183).to_bytes(2, "little")  # EM_AARCH64
    core_path.write_bytes(bytes(data))
    assert _refused(core_path) == f'"{core_path}": no core file handler recognizes format'


def test_a_32_bit_core_is_not_recognized(core_path: Path) -> None:
    data = bytearray(core_path.read_bytes())
    data[4] = 1  # ELFCLASS32
    core_path.write_bytes(bytes(data))
    assert "is not a core dump: file format not recognized" in _refused(core_path)


def test_a_core_cut_inside_its_notes_is_not_recognized(core_path: Path) -> None:
    with open_core(str(core_path)) as core:
        first_load = min(s.offset for s in core.segments)
    os.truncate(core_path, 64 + 56 * 4 + 40)  # past the program headers, inside the notes
    assert first_load > 64 + 56 * 4 + 40
    assert "is not a core dump: file format not recognized" in _refused(core_path)


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="absent: No such file or directory.$"):
        open_core(str(tmp_path / "absent"))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cut=st.integers(0, 6000), position=st.integers(0, 6000), value=st.integers(0, 255))
def test_damaged_cores_are_refused_or_read_never_crash(
    tmp_path: Path, cut: int, position: int, value: int
) -> None:
    path = tmp_path / "damaged.core"
    if not path.exists():
        make_core(tmp_path / "pristine.core", tmp_path / "mapped.bin")
    data = bytearray((tmp_path / "pristine.core").read_bytes())
    if position < len(data):
        data[position] = value
    path.write_bytes(bytes(data[: len(data) - cut]))
    try:
        core = open_core(str(path))
    except CoreFormatError:
        return
    with core:
        for thread in core.threads:
            thread.vector_registers()
            try:
                core.read(thread.registers["rsp"], 64)
            except CoreMemoryError:
                pass
        core.build_id()
