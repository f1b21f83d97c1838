"""Fakes for value tests without a process: a frame of memory the test lays out (no
registers, no CFA, nothing writable; subclasses say how memory reads), and a variable store
that lists the names it describes anew rather than from what it kept."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.model import VariableInfo
from aliceserver.debuggers.source.variables import VariableStore
from aliceserver.debuggers.symbols.dwarf.values import Value


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


def described_anew(store: VariableStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names `store` describes from scratch from now on, in order."""
    made: list[str] = []
    anew = store._describe_anew

    def counting(name: str, value: Value, *args: object, **kwargs: object) -> VariableInfo:
        made.append(name)
        return anew(name, value, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "_describe_anew", counting)
    return made
