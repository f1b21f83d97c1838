"""`break NAME` before a large program's index is built searches its .debug_info for NAME's
inlined copies in a child process meanwhile (programsearch.py, searchchild.py).

Real builds: a program of three units, two of them calling a `static inline` function of a
header (an inlined copy in each). The child is forced on this small program by the
threshold's environment variable. Checked: the breakpoint's locations, the stop and the
backtrace are the same with the child as without it (and as gdb's); a child that fails
leaves the session to search itself, with the same answer; a child still searching when
the session's image changes is killed and reaped, and its askers search themselves; no
child of the server remains after a session; the child's answer is hit_positions'.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aliceserver.aheadchild import AheadChild
from aliceserver.debuggers.symbols.dwarf import mentions, programsearch, searchchild
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.inlines import mention_needles
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections, open_dwarf
from aliceserver.debuggers.symbols.dwarf.sectionsearch import hit_positions, units_holding
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.ahead_children import children_running, fault_hooks
from tests.support.batch import needs_gdb, normalized, theirs
from tests.support.inlined_twice import build_inlined_twice
from tests.support.mi_client import ROOT, MiClient
from tests.support.procs import all_pids, read_status

pytestmark = pytest.mark.timeout(120)

_SESSION = ("-batch", "-ex", "break twice", "-ex", "info breakpoints", "-ex", "run", "-ex", "bt")
_CHILD = "aliceserver.debuggers.symbols.dwarf.searchchild"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("search-child")
    build_inlined_twice(root)
    fault_hooks(root / "custom", _CHILD, "SEARCH_CHILD_TEST")
    return root / "prog"


def _env(program: Path, least: int, test: str = "") -> dict[str, str]:
    paths = [str(program.parent / "custom"), str(ROOT), os.environ.get("PYTHONPATH", "")]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p),
                ALICESERVER_SEARCH_CHILD_LEAST=str(least), SEARCH_CHILD_TEST=test)  # fmt: skip


def _session(
    program: Path, tmp_path: Path, name: str, least: int, test: str = ""
) -> tuple[str, str]:
    """(stdout, log) of a session with an empty index cache."""
    log = tmp_path / f"{name}.log"
    argv = [sys.executable, "-m", "aliceserver", "--cache-dir", str(tmp_path / f"{name}-cache"),
            "--log-file", str(log), "--log-level", "DEBUG", "-nx", *_SESSION, str(program)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=_env(program, least, test),
                          cwd=program.parent, stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout, log.read_text()


def _children_searching(program: Path) -> list[int]:
    """Search children (of anyone) still searching `program`."""
    return children_running(_CHILD, str(program))


def test_the_breakpoint_and_stop_are_the_same_with_the_child_as_without(
    program: Path, tmp_path: Path
) -> None:
    with_child, log = _session(program, tmp_path, "child", 1)
    assert "in a child for 2 needles" in log, log  # the name's and its string offset's
    without, log_without = _session(program, tmp_path, "alone", 1 << 62)
    assert " in a child" not in log_without
    assert normalized(with_child) == normalized(without)
    assert with_child.count(" in twice at ") == 2  # the copies inlined in from_a and from_b
    assert "Breakpoint 1.1, twice (x=" in with_child
    assert not _children_searching(program)


@needs_gdb
def test_the_child_session_stops_as_gdb(program: Path, tmp_path: Path) -> None:
    ours, _log = _session(program, tmp_path, "child", 1)
    gdb = theirs(["-nx", *_SESSION, str(program)], program.parent)
    assert normalized(ours) == normalized(gdb.stdout)


def test_a_child_that_fails_leaves_the_search_to_the_session(program: Path, tmp_path: Path) -> None:
    failed, log = _session(program, tmp_path, "failed", 1, "fail")
    assert "searching" in log and "not searched in a child: the session searches" in log, log
    without, _log = _session(program, tmp_path, "alone", 1 << 62)
    assert normalized(failed) == normalized(without)
    assert failed.count(" in twice at ") == 2
    assert not _children_searching(program)


def test_no_child_of_the_server_remains(program: Path, tmp_path: Path) -> None:
    """An MI session: after `break` (the child answered) and at the stop, the server's only
    child is the program; after a new image and the session's end, no search child runs."""
    args = ["-i=mi", "-q", "-nx", "--cache-dir", str(tmp_path / "cache"), str(program)]
    mi = MiClient(args, cwd=program.parent, env=_env(program, 1))
    try:
        mi.prompt()
        mi.ok("-break-insert twice")
        server = mi.process.pid
        mi.ok("-exec-run")
        assert mi.stopped().results.get("reason") == "breakpoint-hit"
        children = [s for s in map(read_status, all_pids()) if s is not None and s.ppid == server]
        assert [s.name for s in children] == ["prog"], children  # no search child, no zombie
        mi.ok("kill")
        mi.ok(f"-file-exec-and-symbols {program}")  # a new image
    finally:
        assert mi.close() == 0
    assert not _children_searching(program)


def test_a_child_still_searching_is_killed_and_its_askers_search(program: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """As when the session's image changes (SourceSymbols.close) while the child runs."""
    for key, value in _env(program, 1, "hang").items():
        monkeypatch.setenv(key, value)
    started = programsearch.start(
        ElfImage.load(str(program)), IndexCache(str(tmp_path / "cache")), "twice"
    )
    assert started is not None
    (_main, dwarf), search = started
    pid = search._child.pid if search._child.started else 0
    assert pid and read_status(pid) is not None and read_status(pid).ppid == os.getpid()  # type: ignore[union-attr]
    time.sleep(0.2)  # (hanging in its sitecustomize)
    search.close()
    assert read_status(pid) is None  # killed and reaped
    needles = mention_needles(dwarf, "twice")
    assert needles
    offsets = _unit_offsets(dwarf)
    assert mentions.holding(dwarf, needles, offsets) == units_holding(
        dwarf, ".debug_info", needles, offsets
    )
    assert len(mentions.holding(dwarf, needles, offsets)) == 2


_LEAVING = """
import sys
from aliceserver.debuggers.symbols.dwarf import programsearch
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.startup import leave
started = programsearch.start(ElfImage.load(sys.argv[1]), IndexCache(sys.argv[2]), "twice")
assert started is not None and started[1]._child.started
print(started[1]._child.pid, flush=True)
leave(0)
"""


def test_a_child_still_searching_when_the_server_leaves_is_killed_and_reaped(
    program: Path, tmp_path: Path
) -> None:
    """startup.leave ends with os._exit: the child (hanging before it could ask for the
    parent-death signal) is not left running, nor to init to reap."""
    done = subprocess.run(
        [sys.executable, "-c", _LEAVING, str(program), str(tmp_path / "cache")],
        capture_output=True, text=True, timeout=60, env=_env(program, 1, "hang"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout)
    assert read_status(pid) is None


def test_a_child_stuck_is_killed_and_its_askers_search(
    program: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that does not answer in time is not waited for."""
    for key, value in _env(program, 1, "hang").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(programsearch, "_PATIENCE", 0.5)
    started = programsearch.start(
        ElfImage.load(str(program)), IndexCache(str(tmp_path / "cache")), "twice"
    )
    assert started is not None
    (_main, dwarf), search = started
    pid = search._child.pid if search._child.started else 0
    needles = mention_needles(dwarf, "twice")
    assert pid and needles
    offsets = _unit_offsets(dwarf)
    assert len(mentions.holding(dwarf, needles, offsets)) == 2  # (waits for the patience)
    search.close()
    assert read_status(pid) is None


def test_the_childs_answer_is_the_sessions(program: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """searchchild's positions, read back, are hit_positions', over capped needles too."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    opened = open_dwarf(str(program), ElfImage.load(str(program)).build_id)
    assert opened is not None
    dwarf = opened[1]
    header = dwarf.header(".debug_info")
    assert header is not None
    needles = [
        *(mention_needles(dwarf, "twice") or ()),
        (b"from_", b"ab"),
        b"\x01",
        b"int\x00",
        b"zz\xffzz",
    ]
    for cap in (4096, 3):
        arguments = searchchild.arguments(
            dwarf.path, header.offset, dwarf.size(".debug_info"), cap, needles
        )
        child = AheadChild(_CHILD, arguments)
        output = child.answer()
        assert output is not None
        assert searchchild.answer(output, needles) == hit_positions(
            dwarf, ".debug_info", needles, cap
        )
    assert searchchild.answer(b"1 2\n", needles) is None  # not a whole answer


def test_the_session_uses_the_childs_answer(
    program: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The askers of the needles the child searched do not search again."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("ALICESERVER_SEARCH_CHILD_LEAST", "1")
    started = programsearch.start(
        ElfImage.load(str(program)), IndexCache(str(tmp_path / "cache")), "twice"
    )
    assert started is not None
    (_main, dwarf), search = started
    needles = mention_needles(dwarf, "twice")
    assert needles
    offsets = _unit_offsets(dwarf)
    expected = units_holding(dwarf, ".debug_info", needles, offsets)

    def no_search(*_args: object, **_kwargs: object) -> set[int]:
        raise AssertionError("searched again")

    monkeypatch.setattr(mentions, "units_holding", no_search)
    try:
        assert mentions.holding(dwarf, needles, offsets) == expected
    finally:
        search.close()
    assert len(expected) == 2


def _unit_offsets(dwarf: ElfSections) -> list[int]:
    from aliceserver.debuggers.symbols.dwarf.rawread import unit_length

    data = dwarf.get(".debug_info")
    offsets, at = [], 0
    while at < len(data):
        offsets.append(at)
        length, _osize, body = unit_length(data, at)
        at = body + length
    return offsets


def test_no_search_for_copies_remembered_beside_a_lost_index(program: Path, tmp_path: Path) -> None:
    """The program's index gone but the answers kept beside it (its `-extra` file, as a
    deleted index file leaves them): NAME's inlined copies are known, and no child
    searches for them; the session stops as with an empty cache."""
    first, _log = _session(program, tmp_path, "kept", 1)
    image = ElfImage.load(str(program))
    stat = program.stat()
    cache = IndexCache(str(tmp_path / "kept-cache"))
    index = Path(
        cache.path_for(
            IndexCache.key_for(image.build_id, str(program), stat.st_mtime_ns, stat.st_size)
        )
    )
    assert index.exists() and any(
        p.name.startswith(index.name.split(".")[0] + "-extra") for p in index.parent.iterdir()
    )
    index.unlink()
    (tmp_path / "kept.log").unlink()  # (the second session's alone)
    again, log = _session(program, tmp_path, "kept", 1)
    rebuilt = "indexed the names of" in log or "built by this session's child" in log
    assert rebuilt and " in a child" not in log, log  # (the child started with the server's)
    assert normalized(again) == normalized(first)
    assert again.count(" in twice at ") == 2
