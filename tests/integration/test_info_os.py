"""gdb's `-info-os [TYPE]` and `info os [TYPE]` (Linux osdata: cpus, files, modules, msg,
processes, procgroups, semaphores, shm, sockets, threads): the list of types, the errors and
the console's table as gdb 13's; each type's columns as gdb's, and rows that stay the same
between the two runs (this test's own process) alike. Eclipse CDT lists `processes` to attach."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.cores import gdb_gcore
from tests.support.mi_grammar import List, Tuple, parse_record
from tests.support.mi_script import both

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_TYPES = ("cpus", "files", "modules", "msg", "processes", "procgroups", "semaphores", "shm", "sockets", "threads")


def _table(line: str) -> tuple[list[str], list[list[str]]]:
    """(column titles, rows) of an `^done,OSDataTable={...}` record."""
    table = parse_record(line).results["OSDataTable"]
    assert isinstance(table, Tuple)
    hdr = table["hdr"]
    assert isinstance(hdr, List)
    titles = [str(column["colhdr"]) for column in hdr.values if isinstance(column, Tuple)]
    body = table.get("body")
    rows = [[str(value) for _, value in item.items] for item in body.values if isinstance(item, Tuple)] if isinstance(body, List) else []
    assert table["nr_rows"] == str(len(rows)) and table["nr_cols"] == str(len(titles))
    return titles, rows


def test_info_os_types_and_errors_as_gdb(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    commands = ["-info-os", "-info-os types", "-info-os nosuch", "-info-os a b",
                '-interpreter-exec console "info os"', '-interpreter-exec console "info os types"',
                '-interpreter-exec console "info os nosuch"']  # fmt: skip
    expected, got = both(prog, commands, tmp_path)
    assert got == expected
    titles, rows = _table(next(line for line in got if line.startswith("^done,OSDataTable")))
    assert titles == ["Type", "Description", "Title"] and [row[0] for row in rows] == list(_TYPES)


def test_each_type_has_gdbs_columns_and_our_rows_match(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    expected, got = both(prog, [f"-info-os {kind}" for kind in _TYPES], tmp_path)
    theirs = [_table(line) for line in expected if line.startswith("^done")]
    ours = [_table(line) for line in got if line.startswith("^done")]
    assert len(ours) == len(theirs) == len(_TYPES)
    tables = dict(zip(_TYPES, zip(theirs, ours, strict=True), strict=True))
    for kind, ((their_titles, their_rows), (our_titles, our_rows)) in tables.items():
        assert our_titles == their_titles, kind
        assert bool(our_rows) == bool(their_rows), kind
    me = str(os.getpid())  # this test's process: the same in both runs
    for kind, key, width in (("processes", 0, 3), ("procgroups", 2, 4), ("threads", 2, 3), ("files", 0, 4)):
        (_, their_rows), (_, our_rows) = tables[kind]
        mine = [row[:width] for row in our_rows if row[key] == me]
        assert mine and all(row in [r[:width] for r in their_rows] for row in mine
                            if kind != "files" or row[2] in ("0", "1", "2")), kind  # fmt: skip
    (_, their_cpus), (_, our_cpus) = tables["cpus"]
    assert [row[:2] for row in our_cpus] == [row[:2] for row in their_cpus]  # processor, vendor


def test_a_core_files_target_has_no_os_data_as_in_gdb(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    core = tmp_path / "cli_prog.core"
    gdb_gcore(prog, [], "add", core)
    commands = [f'-interpreter-exec console "core-file {core}"', "-info-os", "-info-os processes",
                '-interpreter-exec console "info os"']  # fmt: skip
    expected, got = both(prog, commands, tmp_path)
    answers = [line for line in got if line.startswith(("^", "&"))]
    assert answers == [line for line in expected if line.startswith(("^", "&"))]
    assert answers.count('^error,msg="Can not fetch data now."') == 3
