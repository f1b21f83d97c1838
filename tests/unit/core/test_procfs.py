"""The writer's /proc readers on this very process."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

import pytest

from aliceserver.debuggers.core.procfs import parse_maps, process_image, read_psinfo
from aliceserver.errors import TargetError


def test_parse_maps_reads_every_line() -> None:
    text = Path("/proc/self/maps").read_text()
    mappings = parse_maps(text)
    assert len(mappings) == len(text.splitlines())
    stack = next(m for m in mappings if m.path == "[stack]")
    assert stack.start < stack.end and "rw" in stack.permissions and not stack.file_backed
    python = next(
        m for m in mappings if m.offset == 0 and m.path == os.path.realpath("/proc/self/exe")
    )
    assert python.file_backed and python.inode == os.stat(python.path).st_ino


def test_parse_maps_keeps_spaces_in_paths() -> None:
    line = "7f0000000000-7f0000001000 r--p 00001000 08:01 1234                       /tmp/a b (deleted)"
    [mapping] = parse_maps(line)
    assert (mapping.path, mapping.offset, mapping.inode, mapping.flags) == (
        "/tmp/a b (deleted)",
        0x1000,
        1234,
        4,
    )


def test_psinfo_of_this_process() -> None:
    info = read_psinfo(os.getpid())
    assert info.pid == os.getpid() and info.ppid == os.getppid()
    assert info.name == Path("/proc/self/comm").read_text().strip()
    cmdline = Path("/proc/self/cmdline").read_bytes()[:80].replace(b"\0", b" ").decode().rstrip()  # 80 bytes as gdb's gcore
    assert info.arguments == cmdline
    assert (info.uid, info.gid, info.sid) == (os.getuid(), os.getgid(), os.getsid(0))


def test_process_image_reads_memory_of_this_process() -> None:
    data = b"core-writer-probe"
    buffer = bytearray(data)
    address = ctypes.addressof((ctypes.c_char * len(buffer)).from_buffer(buffer))
    with process_image(os.getpid(), []) as image:
        assert image.read_memory(address, len(data)) == data
        assert image.auxv and any(m.path == "[stack]" for m in image.mappings)


def test_a_process_that_is_gone_is_a_target_error() -> None:
    with pytest.raises(TargetError):
        read_psinfo(2**22 + 12345)
