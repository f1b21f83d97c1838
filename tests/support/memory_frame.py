"""A frame for value tests without a process: memory the test lays out, and nothing else
(no registers, no CFA, nothing writable). Subclasses say how memory reads."""

from __future__ import annotations


class MemoryOnlyFrame:
    pc = 0
    load_bias = 0
    fs_base: int | None = None

    def read_memory(self, address: int, size: int) -> bytes:
        raise NotImplementedError

    def register(self, regno: int) -> int | None:
        return None

    def cfa(self) -> int | None:
        return None

    def write_memory(self, address: int, data: bytes) -> None:
        raise OSError

    def write_register(self, regno: int, value: int) -> None:
        raise OSError
