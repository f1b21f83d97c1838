"""The index cache in trouble: damaged files, another format's, a read-only directory, a
full disk, two servers filling the same directory at once. Each is detected and the cache
rebuilt or bypassed with one warning on the log; the session's answers (a breakpoint stop
and a backtrace, through the batch console) are those of a session with a fresh cache.

The read-only directory and the full disk are real mounts (a tmpfs, read-only or a few
KB), made in a private mount namespace by `unshare -rm` so that no privilege is needed;
the tests skip where the system allows no such namespace."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.mi_client import ROOT

# Enough functions that the unit's line program is stored as rows too (over MIN_PROGRAM).
_FUNCTIONS = 300
_SESSION = ("-batch", "-ex", "break leaf_7", "-ex", "run", "-ex", "bt")


def _source() -> str:
    out = ["#include <stdio.h>"]
    for i in range(_FUNCTIONS):
        out.append(f"__attribute__((noinline)) int leaf_{i}(int x)\n{{\n    int y = x * {i};\n"
                   f"    return y + 1;\n}}")  # fmt: skip
    out.append("__attribute__((noinline)) int middle(int x) { return leaf_7(x + 1); }")
    out.append('int main(void) { printf("%d\\n", middle(2)); return 0; }')
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    root = tmp_path_factory.mktemp("cache-trouble")
    (root / "many.c").write_text(_source())
    subprocess.run(["gcc", "-g", "-O0", "many.c", "-o", "many"], cwd=root, check=True)
    return root / "many"


def _env(home: Path) -> dict[str, str]:
    # XDG_CACHE_HOME too: nothing may reach the user's own cache, --cache-dir or not
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                XDG_CACHE_HOME=str(home / "xdg"))  # fmt: skip


def _command(program: Path, cache: Path, log: Path) -> list[str]:
    return [sys.executable, "-m", "aliceserver", "--cache-dir", str(cache), "--log-file", str(log),
            "--log-level", "DEBUG", *_SESSION, str(program)]  # fmt: skip


def _session(program: Path, cache: Path, log: Path, mount: str | None = None) -> str:
    """The console's output of one session; `mount`: the cache directory is first mounted
    with these `mount` arguments in a namespace of the session's own."""
    argv = _command(program, cache, log)
    if mount is not None:
        argv = ["unshare", "-rm", "sh", "-c", f'mount {mount} "$0" && exec "$@"', str(cache), *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=_env(log.parent),
                          cwd=program.parent)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def _warnings(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if " WARNING " in line]


def _read_from_cache(log: Path) -> bool:
    return "read from the cache" in log.read_text()


def _cache_files(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*") if p.is_file() and p.suffix in (".idx", ".rows"))


@pytest.fixture(scope="module")
def expected(program: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The answers with a fresh cache."""
    where = tmp_path_factory.mktemp("fresh")
    out = _session(program, where / "cache", where / "log")
    assert "Breakpoint 1, leaf_7 (x=3) at " in out and "#1  " in out and "in main () at " in out
    assert not _warnings(where / "log")
    return out


def _filled(program: Path, tmp_path: Path, expected: str) -> Path:
    cache = tmp_path / "cache"
    assert _session(program, cache, tmp_path / "fill.log") == expected
    files = _cache_files(cache)
    assert any(p.suffix == ".rows" for p in files) and any(p.suffix == ".idx" for p in files)
    return cache


def test_a_warm_cache_answers_as_a_fresh_one(program: Path, tmp_path: Path, expected: str) -> None:
    cache = _filled(program, tmp_path, expected)
    log = tmp_path / "warm.log"
    assert _session(program, cache, log) == expected
    assert _read_from_cache(log) and not _warnings(log)


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _garbage(data: bytes) -> bytes:
    return bytes(b ^ 0x5A for b in data)


def _flip_one_byte(data: bytes) -> bytes:
    return data[:-7] + bytes([data[-7] ^ 1]) + data[-6:]


def _other_version(data: bytes) -> bytes:
    return data[:8] + (int.from_bytes(data[8:12], "little") + 1).to_bytes(4, "little") + data[12:]


@pytest.mark.parametrize("damage", [_truncate, _garbage, _flip_one_byte, _other_version, lambda _d: b""])
def test_damaged_files_are_rebuilt_with_one_warning(program: Path, tmp_path: Path, expected: str,
                                                    damage: object) -> None:  # fmt: skip
    cache = _filled(program, tmp_path, expected)
    for path in _cache_files(cache):
        path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    log = tmp_path / "damaged.log"
    assert _session(program, cache, log) == expected
    (warning,) = _warnings(log)
    assert "ignoring the cache file" in warning and "rebuilding it" in warning
    log = tmp_path / "after.log"  # written back whole: read, and no more warnings
    assert _session(program, cache, log) == expected
    assert _read_from_cache(log) and not _warnings(log)


def test_files_of_another_format_version_are_left_alone(program: Path, tmp_path: Path,
                                                        expected: str) -> None:  # fmt: skip
    """Another version's files (an older or newer aliceserver sharing the directory) are
    named apart: neither read nor removed, only counted against the bound."""
    cache = _filled(program, tmp_path, expected)
    for path in _cache_files(cache):
        path.rename(path.with_name(path.name.replace(".v", ".v9")))  # .v7.idx -> .v97.idx
    kept = _cache_files(cache)
    log = tmp_path / "log"
    assert _session(program, cache, log) == expected
    assert not _read_from_cache(log) and not _warnings(log)
    assert set(kept) < set(_cache_files(cache))


def _can_mount(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    done = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount -t tmpfs tmpfs {probe}"],
                          capture_output=True)  # fmt: skip
    return done.returncode == 0


def _warning_on_a_mount(program: Path, tmp_path: Path, expected: str, mount: str) -> str:
    """The one warning of a session (its output `expected`) whose cache is an empty
    directory mounted with `mount` (mount's arguments before the directory)."""
    if not _can_mount(tmp_path):
        pytest.skip("no mount namespace here (unshare -rm)")
    empty = tmp_path / "empty"
    empty.mkdir()
    log = tmp_path / "empty.log"
    assert _session(program, empty, log, mount=mount) == expected
    (warning,) = _warnings(log)
    return warning


def test_a_read_only_directory_is_read_and_not_written(program: Path, tmp_path: Path,
                                                       expected: str) -> None:  # fmt: skip
    warning = _warning_on_a_mount(program, tmp_path, expected, "-t tmpfs -o ro tmpfs")
    assert "cannot write the cache file" in warning and "Read-only file system" in warning
    cache = _filled(program, tmp_path, expected)  # a filled one mounted read-only: read
    log = tmp_path / "filled.log"
    assert _session(program, cache, log, mount='--bind "$0" "$0" && mount -o remount,bind,ro') == expected
    assert _read_from_cache(log) and not _warnings(log)


def test_a_full_disk_is_bypassed_with_one_warning(program: Path, tmp_path: Path, expected: str) -> None:
    warning = _warning_on_a_mount(program, tmp_path, expected, "-t tmpfs -o size=4k tmpfs")
    assert "cannot write the cache file" in warning and "No space left on device" in warning
    assert "going on without storing" in warning


def test_two_servers_filling_one_directory_at_once(program: Path, tmp_path: Path, expected: str) -> None:
    cache = tmp_path / "cache"
    logs = [tmp_path / "one.log", tmp_path / "two.log"]
    started = [subprocess.Popen(_command(program, cache, log), stdout=subprocess.PIPE, text=True,
                                env=_env(tmp_path), cwd=program.parent) for log in logs]  # fmt: skip
    outputs = [proc.communicate(timeout=120)[0] for proc in started]
    assert outputs == [expected, expected]
    assert not _warnings(logs[0]) and not _warnings(logs[1])
    leftovers = [p for p in cache.rglob("*") if p.is_file() and p.suffix not in (".idx", ".rows")]
    assert [p.name for p in leftovers] == [".swept"]  # no partial file left: only the sweep's stamp
    log = tmp_path / "after.log"  # whichever wrote last, the files are whole
    assert _session(program, cache, log) == expected
    assert _read_from_cache(log) and not _warnings(log)
