"""Fixtures for the CFI unwinder tests: the scenario program, gdb, an engine session."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.unit.symbols.dwarf_cfi.oracle import PROGRAM, Session


@pytest.fixture(scope="session")
def gdb_path() -> str:
    path = shutil.which("gdb")
    if path is None:
        pytest.skip("needs gdb as the oracle for backtraces")
    return path


@pytest.fixture
def session(debugger: Any) -> Iterator[Session]:
    yield Session(debugger)


Builder = Callable[..., Path]


@pytest.fixture(scope="session")
def build_program(ctools: Any) -> Builder:
    def build(*flags: str) -> Path:
        return ctools.build(PROGRAM.read_text(), *flags, "-pthread", name="unwind")  # type: ignore[no-any-return]

    return build
