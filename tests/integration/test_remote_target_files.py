"""The target's files under gdb's default sysroot `target:`: over gdbserver the program's
libraries are read through the stub (vFile), as gdb 13 reads them, when this machine
cannot see them (gdbserver runs in a mount namespace of its own where the library's
directory holds it; ours is empty). And libraries found nowhere under the sysroot are
listed as gdb lists them (Syms Read No) with its warning, over a stub and natively."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.gdb import gdb_path
from tests.support.gdbserver import gdbserver
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

# In a namespace of its own (user and mount), the stash is bound over the library's
# directory, then gdbserver runs there: only the stub sees the library.
_HIDING = ["unshare", "-rm", "sh", "-c", 'mount --bind "$1" "$2" && shift 2 && exec "$@"', "sh"]
# The same, the debug directory's files too (a library's separate debug file by build id)
_HIDING_DEBUG = ["unshare", "-rm", "sh", "-c",
                 'mount --bind "$1" "$2" && mount --bind "$3" "$4" && shift 4 && exec "$@"', "sh"]  # fmt: skip
DEBUG_DIRECTORY = Path("/usr/lib/debug")  # gdb's debug-file-directory


def _can_hide() -> bool:
    if shutil.which("unshare") is None:
        return False
    done = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    return done.returncode == 0


@pytest.fixture(scope="module")
def hidden(builder: Builder, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """(a program linked against a library this process cannot see, the wrapper that runs
    gdbserver where it is seen)."""
    if not _can_hide():
        pytest.skip("no user and mount namespaces (unshare -rm) here")
    root = tmp_path_factory.mktemp("target-files")
    stash, shown = root / "stash", root / "libs"
    stash.mkdir()
    shown.mkdir()
    library = shown / "lib_solib"
    shutil.copy(builder.build("lib_solib", extra=["-shared", "-fPIC"]), library)
    program = builder.build("solib_main", extra=["-Wl,--no-as-needed", str(library)])
    shutil.move(str(library), str(stash / "lib_solib"))
    return program, [*_HIDING, str(stash), str(shown)]


@pytest.fixture(scope="module")
def hidden_debug(builder: Builder, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """As `hidden`, the library without its DWARF, which is in its separate debug file
    under the target's debug directory, by its build id: only the stub sees either."""
    if not _can_hide() or not DEBUG_DIRECTORY.is_dir():
        pytest.skip("no user and mount namespaces (unshare -rm), or no /usr/lib/debug to bind over")
    root = tmp_path_factory.mktemp("target-files")
    stash, shown, debug = root / "stash", root / "libs", root / "debug"
    for directory in (stash, shown, debug):
        directory.mkdir()
    library = shown / "lib_solib"
    shutil.copy(builder.build("lib_solib", extra=["-shared", "-fPIC"]), library)
    program = builder.build("solib_main", extra=["-Wl,--no-as-needed", str(library)])
    notes = subprocess.run(["readelf", "-n", str(library)], capture_output=True, text=True).stdout
    build_id = re.search(r"Build ID: ([0-9a-f]+)", notes)
    if build_id is None:
        pytest.skip("the linker gives no build id")
    linked = debug / ".build-id" / build_id.group(1)[:2] / (build_id.group(1)[2:] + ".debug")
    linked.parent.mkdir(parents=True)
    subprocess.run(["objcopy", "--only-keep-debug", str(library), str(linked)], check=True)
    subprocess.run(["strip", "--strip-debug", str(library)], check=True)
    shutil.move(str(library), str(stash / "lib_solib"))
    return program, [*_HIDING_DEBUG, str(stash), str(shown), str(debug), str(DEBUG_DIRECTORY)]


def _normalized(text: str) -> str:
    text = normalized(text)
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    text = re.sub(r"/[^\s:]*/target-files\d*/", "ROOT/", text)
    return re.sub(r"0x00007ff[0-9a-f]+", "0x00007ff...", text)


def _both(program: Path, wrapper: Sequence[str], commands: Sequence[str], cwd: Path) -> tuple[str, str]:
    """(gdb's, ours) stdout and stderr of `-batch` COMMANDS against a fresh gdbserver each
    (`{target}` its address), both with gdb's default sysroot unless COMMANDS set one."""
    said = []
    for run in (theirs, ours):
        with gdbserver(program, wrapper=wrapper) as server:
            lines = [c.replace("{target}", server.address) for c in commands]
            done = run(["-batch", "-nx", *ex(*lines), str(program)], cwd)
            said.append(_normalized(done.stdout) + "\n--stderr--\n" + _normalized(done.stderr))
    return said[0], said[1]


def _gdb_only_lines(said: str) -> str:
    """gdb's output without what it reads that we do not: a file once more (the loader for
    its shared-library breakpoint and then its list, a debug file to check then to read)
    and, on connecting, the vDSO's separate debug file (we read no symbols of the vDSO)."""
    kept: list[str] = []
    connected = False
    for line in said.splitlines():
        connected = connected or line.startswith("0x0000")  # the frame `target remote` shows
        if (".build-id/" in line and not connected) or (kept and line == kept[-1] and line.startswith("Reading ")):
            continue
        kept.append(line)
    return "\n".join(kept)


def test_libraries_read_through_the_stub_like_gdb(hidden: tuple[Path, list[str]], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    program, wrapper = hidden
    monkeypatch.setenv("ALICESERVER_CACHE_DIR", str(tmp_path / "cache"))
    commands = ["target remote {target}", "info sharedlibrary", "break solib_step", "continue", "bt",
                "info sharedlibrary", "print solib_counter", "kill"]  # fmt: skip
    gdb, alice = _both(program, wrapper, commands, tmp_path)
    assert alice == _gdb_only_lines(gdb), alice
    assert "Reading ROOT/libs/lib_solib from remote target..." in alice
    assert "Yes         target:ROOT/libs/lib_solib" in alice and "solib_step (x=" in alice
    # the copies are kept under the session's cache directory, none elsewhere
    copies = list((tmp_path / "cache" / "target-files").rglob("lib_solib"))
    assert len(copies) == 1 and copies[0].read_bytes()[:4] == b"\x7fELF"


def test_a_separate_debug_file_read_through_the_stub_like_gdb(hidden_debug: tuple[Path, list[str]],
                                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """gdb looks for a library's debug file by build id in its debug directory, then in the
    same under the sysroot: here the target's."""
    program, wrapper = hidden_debug
    monkeypatch.setenv("ALICESERVER_CACHE_DIR", str(tmp_path / "cache"))
    commands = ["target remote {target}", "break solib_step", "continue", "bt", "info locals",
                "info sharedlibrary", "kill"]  # fmt: skip
    gdb, alice = _both(program, wrapper, commands, tmp_path)
    assert alice == _gdb_only_lines(gdb), alice
    assert re.search(r"Reading /usr/lib/debug/\.build-id/../\w+\.debug from remote target", alice)
    assert "solib_step (x=" in alice and "at " in alice.split("solib_step (x=")[1].split("\n")[0]


def test_a_library_found_nowhere_is_listed_like_gdb(hidden: tuple[Path, list[str]], tmp_path: Path) -> None:
    program, wrapper = hidden
    commands = ["set sysroot /", "target remote {target}", "break main", "continue", "info sharedlibrary",
                "bt", "kill"]  # fmt: skip
    gdb, alice = _both(program, wrapper, commands, tmp_path)
    assert alice == gdb
    assert "                                        No          ROOT/libs/lib_solib" in alice
    assert "warning: Could not load shared library symbols for ROOT/libs/lib_solib." in alice


def _partial_sysroot(program: Path, tmp_path: Path) -> Path:
    """A sysroot holding `program`'s loader and libc alone (by the names the loader gives)."""
    listed = subprocess.run(["ldd", str(program)], capture_output=True, text=True).stdout
    kept = re.findall(r"^\s*(?:libc\.so\.6 => )?(/\S*(?:ld-linux\S*|libc\.so\.6)) \(", listed, re.MULTILINE)
    if len(kept) != 2:
        pytest.skip(f"no loader and libc to put in a sysroot: {listed}")
    sysroot = tmp_path / "sysroot"
    for path in kept:
        place = sysroot / path.lstrip("/")
        place.parent.mkdir(parents=True, exist_ok=True)
        place.symlink_to(path)
    return sysroot


@pytest.fixture
def linked(builder: Builder) -> tuple[Path, Path]:
    """(a program, the library it is linked against by path)."""
    library = builder.build("lib_solib", extra=["-shared", "-fPIC"])
    return builder.build("solib_main", extra=["-Wl,--no-as-needed", str(library)]), library


def test_libraries_missing_from_the_sysroot_are_listed_like_gdb(linked: tuple[Path, Path], tmp_path: Path) -> None:
    """Natively: a sysroot holding the loader and libc alone."""
    program, library = linked
    commands = [f"set sysroot {_partial_sysroot(program, tmp_path)}", "break main", "run", "info sharedlibrary", "kill"]
    said = []
    for run in (theirs, ours):
        done = run(["-batch", "-nx", *ex(*commands), str(program)], tmp_path)
        said.append(normalized(done.stdout) + "\n--stderr--\n" + normalized(done.stderr))
    assert said[1] == said[0]
    assert f"No          {library}" in said[1]


def test_a_sysroot_without_the_loader_lists_the_libraries_like_gdb(linked: tuple[Path, Path], tmp_path: Path) -> None:
    """No loader under the sysroot: no breakpoint of its to follow the libraries (gdb warns
    so), which are listed unread at the next stop all the same."""
    program, library = linked
    commands = [f"set sysroot {tmp_path / 'nowhere'}", "break main", "run", "info sharedlibrary", "bt", "kill"]
    said = []
    for run in (theirs, ours):
        done = run(["-batch", "-nx", *ex(*commands), str(program)], tmp_path)
        said.append(normalized(done.stdout) + "\n--stderr--\n" + normalized(done.stderr))
    assert said[1] == said[0]
    assert "Unable to find dynamic linker breakpoint function." in said[1] and f"No          {library}" in said[1]


def test_mi_tells_of_a_missing_library_like_gdb(linked: tuple[Path, Path], tmp_path: Path) -> None:
    """=library-loaded with an empty range, and the warning after the libraries' records."""
    program, library = linked
    script = (f"-gdb-set sysroot {_partial_sysroot(program, tmp_path)}\n-break-insert main\n-exec-run\n"
              "-file-list-shared-libraries\n-gdb-exit\n")  # fmt: skip
    said = []
    for run in (theirs, ours):
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        done = subprocess.run([*run_command(run), "-nx", "-i=mi", str(program)], input=script, cwd=tmp_path,
                              capture_output=True, text=True, timeout=120, env=env)  # fmt: skip
        kept = [line.removesuffix('\\n"').removesuffix('"') for line in done.stdout.splitlines()
                if line.startswith(("=library-loaded", "&\"warning: Could not", "^done,shared-libraries"))]
        said.append(kept)
    assert said[1] == said[0]
    assert any(f'id="{library}"' in line and 'ranges=[{}]' in line for line in said[1])


def run_command(run: object) -> list[str]:
    """The command line `theirs` or `ours` runs."""
    if run is theirs:
        gdb = gdb_path()
        assert gdb is not None
        return [gdb]
    return [sys.executable, "-m", "aliceserver"]
