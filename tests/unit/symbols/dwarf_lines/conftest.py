"""Fixtures for the DWARF location tests (helpers live in support.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from tests.unit.symbols.dwarf_lines.support import Builder


@pytest.fixture(scope="session")
def builder(tmp_path_factory: pytest.TempPathFactory) -> Builder:
    if not shutil.which("gcc"):
        pytest.skip("needs gcc to build the test programs")
    return Builder(tmp_path_factory.mktemp("dwarf-lines"))


@pytest.fixture
def cache(tmp_path: Path) -> IndexCache:
    return IndexCache(str(tmp_path / "index-cache"))
