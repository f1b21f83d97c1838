"""`set logging` side by side with gdb 13 (gdb.mi/mi-logging.exp): the log file holds a
copy of the MI channel's output from the enabling command's ^done on; with `logging
redirect` the output goes there alone; changing a logging setting while logging warns;
`show logging ...` says gdb's sentences and the old `set logging on` still works."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import mi_stopped_at


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("mi_prog")


def _normalized(lines: list[str]) -> list[str]:
    return [re.sub(r'core="\d+"', 'core="N"', line) for line in lines
            if not line.startswith(("=library-loaded", "~\"[Thread debugging", "~\"Using host libthread_db"))]


def _session(prog: Path, workdir: Path, gdb: bool) -> tuple[list[str], list[str]]:
    log = workdir / ("gdb" if gdb else "ours") / "milog.txt"
    log.parent.mkdir()
    screen: list[str] = []
    with mi_stopped_at(prog, "add", prog.parent, gdb=gdb) as mi:
        for command in (f"-gdb-set logging file {log}", "-gdb-set logging overwrite on",
                        "-gdb-set logging enabled on", "-exec-next"):
            screen += mi.command(command, token=False)[1]
        screen += mi.read_until(lambda line: line.startswith("*stopped")) + mi.prompt()
        for command in ("set logging enabled off", "show logging enabled", "show logging overwrite",
                        "-gdb-set logging redirect on", "show logging redirect"):
            screen += mi.command(command, token=False)[1]
        for command in ("1001-gdb-set logging enabled on", "1002-exec-continue", "1003-exec-next"):
            mi.send(command)  # answered in the log alone
        screen += mi.command("1004-gdb-set logging enabled off")[1]
        logged = log.read_text()
        for command in ("-gdb-set logging redirect off", "set logging on", "set logging overwrite off",
                        "set logging off"):
            screen += mi.command(command, token=False)[1]
        logged += "\n".join(mi.command("show logging file", token=False)[1])
    screen = [line.replace(str(log), "LOG") for line in screen]
    return _normalized(screen), _normalized((logged + log.read_text()).replace(str(log), "LOG").splitlines())


@needs_gdb
def test_logging_like_gdb(prog: Path, tmp_path: Path) -> None:
    expected = _session(prog, tmp_path, gdb=True)
    assert any(line.startswith("1003^running") for line in expected[1])
    assert not any(line.startswith("1003^running") for line in expected[0])
    assert _session(prog, tmp_path, gdb=False) == expected
