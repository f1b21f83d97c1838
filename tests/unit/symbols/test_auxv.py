"""parse_auxv / read_auxv on this process's own auxiliary vector, and on random bytes."""

from __future__ import annotations

import os
import struct
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.symbols import auxv
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.linkmap import read_c_string
from aliceserver.errors import TargetError


def _self_auxv() -> dict[int, int]:
    with open("/proc/self/auxv", "rb") as stream:
        return auxv.parse_auxv(stream.read())


def test_parse_own_auxv() -> None:
    vector = _self_auxv()
    assert vector[auxv.AT_PAGESZ] == os.sysconf("SC_PAGESIZE") == 4096
    assert vector[auxv.AT_PHENT] == 56  # sizeof(Elf64_Phdr)
    assert vector[auxv.AT_SYSINFO_EHDR] != 0
    exe = ElfImage.load(os.readlink("/proc/self/exe"))
    assert exe.phdr_vaddr is not None
    bias = vector[auxv.AT_PHDR] - exe.phdr_vaddr
    assert vector[auxv.AT_ENTRY] == exe.entry + bias
    assert vector[auxv.AT_PHNUM] == sum(1 for _ in exe.segments)
    if exe.interp is not None:
        assert vector[auxv.AT_BASE] != 0


def test_execfn_names_the_executable(self_memory: Any) -> None:
    vector = _self_auxv()
    name = read_c_string(self_memory, vector[auxv.AT_EXECFN])
    # The path given to execve: the interpreter, or a script run through its #! line.
    assert name
    if os.path.isabs(name):
        assert os.path.isfile(name)


def test_read_auxv_matches_the_file() -> None:
    assert auxv.read_auxv(os.getpid()) == _self_auxv()


def test_read_auxv_of_a_missing_process() -> None:
    with pytest.raises(TargetError) as info:
        auxv.read_auxv(2**22 + 12345)  # above pid_max's ceiling
    assert info.value.pid == 2**22 + 12345


def test_parse_stops_at_at_null() -> None:
    data = struct.pack("<6Q", auxv.AT_PAGESZ, 4096, auxv.AT_NULL, 0, auxv.AT_ENTRY, 1)
    assert auxv.parse_auxv(data) == {auxv.AT_PAGESZ: 4096}


def test_parse_ignores_a_partial_entry() -> None:
    data = struct.pack("<2Q", auxv.AT_ENTRY, 0x401000) + b"\x01\x02\x03"
    assert auxv.parse_auxv(data) == {auxv.AT_ENTRY: 0x401000}
    assert auxv.parse_auxv(b"") == {}


@given(st.lists(st.tuples(st.integers(1, 2**64 - 1), st.integers(0, 2**64 - 1)), max_size=40))
def test_parse_round_trip(pairs: list[tuple[int, int]]) -> None:
    data = b"".join(struct.pack("<2Q", t, v) for t, v in pairs) + bytes(16)
    expected: dict[int, int] = {}
    for a_type, value in pairs:
        expected.setdefault(a_type, value)
    assert auxv.parse_auxv(data) == expected


@given(st.binary(max_size=600))
def test_parse_random_bytes_never_fails_oddly(data: bytes) -> None:
    try:
        result = auxv.parse_auxv(data)
    except TargetError:
        return
    assert all(isinstance(k, int) and isinstance(v, int) for k, v in result.items())
    assert len(result) <= len(data) // 16
