"""import_bundle: submodules imported from one file of byte code once a process wrote it,
the same modules as Python's own import gives, and never a stale or hidden one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

_CHILD = r"""
import json, sys
from aliceserver import import_bundle
finder = import_bundle.install([sys.argv[1]], packages=("bundled",))
import bundled.plain, bundled.inner.deep
from bundled import plain
print(json.dumps({
    "values": [bundled.plain.VALUE, bundled.inner.deep.VALUE],
    "served": sorted(finder._served),
    "file": bundled.plain.__file__,
    "code_file": bundled.plain.where.__code__.co_filename,
    "path": bundled.inner.__path__,
    "cached": bundled.plain.__cached__,
    "source": bundled.plain.__loader__.get_source("bundled.plain"),
}))
"""


def _run(root: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    repo = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join([str(root / "lib"), str(repo)])
    done = subprocess.run([sys.executable, "-c", _CHILD, str(root / "bundle.bin")], capture_output=True,
                          text=True, env=env, timeout=30)  # fmt: skip
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    lib = tmp_path / "lib" / "bundled"
    _write(lib / "__init__.py", "")
    _write(lib / "plain.py", "VALUE = 1\n\ndef where():\n    return 0\n")
    _write(lib / "inner" / "__init__.py", "")
    _write(lib / "inner" / "deep.py", "VALUE = 'deep'\n")
    return tmp_path


def test_a_second_process_imports_the_same_modules_from_the_bundle(root: Path) -> None:
    first = _run(root)
    assert first["served"] == [] and (root / "bundle.bin").exists()
    second = _run(root)
    assert second["served"] == ["bundled.inner", "bundled.inner.deep", "bundled.plain"]
    assert {k: v for k, v in second.items() if k != "served"} == {k: v for k, v in first.items() if k != "served"}
    assert second["values"] == [1, "deep"] and second["code_file"] == second["file"]
    assert second["path"] == [str(root / "lib" / "bundled" / "inner")]


def test_a_changed_source_is_imported_again_and_rewritten(root: Path) -> None:
    _run(root)
    time.sleep(0.01)  # another mtime
    _write(root / "lib" / "bundled" / "plain.py", "VALUE = 22\n\ndef where():\n    return 0\n")
    changed = _run(root)
    assert changed["values"] == [22, "deep"] and "bundled.plain" not in changed["served"]
    assert "bundled.inner.deep" in changed["served"]
    again = _run(root)
    assert again["values"] == [22, "deep"] and "bundled.plain" in again["served"]


def test_a_module_a_new_file_hides_is_not_served(root: Path) -> None:
    """A package directory added beside plain.py is what Python imports first."""
    _run(root)
    _run(root)
    _write(root / "lib" / "bundled" / "plain" / "__init__.py", "VALUE = 'package'\ndef where():\n    return 1\n")
    hidden = _run(root)
    assert hidden["values"] == ["package", "deep"] and "bundled.plain" not in hidden["served"]


def test_a_file_of_another_layout_or_version_is_not_trusted(root: Path) -> None:
    (root / "bundle.bin").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00garbage that is no index")
    assert _run(root)["served"] == []
    assert _run(root)["served"] == ["bundled.inner", "bundled.inner.deep", "bundled.plain"]


def test_damaged_byte_code_in_the_bundle_is_imported_as_usual(root: Path) -> None:
    _run(root)
    data = bytearray((root / "bundle.bin").read_bytes())
    data[-200:] = bytes(200)  # the last module's code (sorted by name: bundled.plain)
    (root / "bundle.bin").write_bytes(bytes(data))
    damaged = _run(root)
    assert damaged["values"] == [1, "deep"] and "bundled.plain" in damaged["served"]  # its .pyc instead


_REWRITE_CHILD = r"""
import atexit, json, sys
from aliceserver import import_bundle
reads = {"before_write": 0, "in_write": 0}
atexit.register(lambda: print(json.dumps(reads)))  # runs after the bundle's save (registered first)
finder = import_bundle.install([sys.argv[1]], packages=("bundled",))
import bundled.plain, bundled.inner.deep
plain_read, plain_write, writing = import_bundle._Codes.read, import_bundle._write, []

def read(self, offset, length):
    reads["in_write" if writing else "before_write"] += 1
    return plain_read(self, offset, length)

def write(*args):
    writing.append(True)
    return plain_write(*args)

import_bundle._Codes.read, import_bundle._write = read, write
"""


def test_a_rewrite_reads_each_kept_code_as_it_writes_it(root: Path) -> None:
    """A changed source makes the exit's save write the bundle again: the codes it keeps
    from the old bundle are read one at a time as they are written, not all first (a
    6 MB bundle read whole made a warm session's exit its peak: 38 MB instead of 33)."""
    _run(root)
    time.sleep(0.01)  # another mtime
    _write(root / "lib" / "bundled" / "plain.py", "VALUE = 333\n\ndef where():\n    return 0\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    repo = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join([str(root / "lib"), str(repo)])
    done = subprocess.run([sys.executable, "-c", _REWRITE_CHILD, str(root / "bundle.bin")],
                          capture_output=True, text=True, env=env, timeout=30)  # fmt: skip
    assert done.returncode == 0, done.stderr
    reads = json.loads(done.stdout.splitlines()[-1])
    assert reads == {"before_write": 0, "in_write": 2}  # bundled.inner, bundled.inner.deep
    assert _run(root)["values"] == [333, "deep"]
