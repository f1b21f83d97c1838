"""Settings and listings of a session over a stub, beside gdb 13's over the same kind of
gdbserver: where conditions are evaluated (`breakpoint condition-evaluation`), the
program extended-remote's `run` starts (`remote exec-file`), and the connection an
inferior is on (`info inferiors`, `info connections`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.integration.test_remote_session import _both
from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_condition_evaluation_host_over_the_stub_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """host: conditions listed without `(host evals)`/`(target evals)`, as gdb lists them."""
    program = builder.build("mi_prog")
    gdb, alice = _both(program, [
        "target remote {target}", "break add if a > 0", "set breakpoint condition-evaluation host",
        "show breakpoint condition-evaluation", "continue", "info breakpoints", "kill",
    ], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "Breakpoint condition evaluation mode is host." in alice and "\tstop only if a > 0\n" in alice


def test_condition_evaluation_target_refused_as_gdb_where_no_target_evaluates(
    builder: Builder, tmp_path: Path
) -> None:
    """No target evaluates conditions here: gdb's warning for such a target, the mode kept."""
    program = builder.build("mi_prog")
    done = assert_like_gdb([*ex("show breakpoint condition-evaluation", "set breakpoint condition-evaluation target",
                                "show breakpoint condition-evaluation", "set breakpoint condition-evaluation bogus",
                                'interpreter-exec mi "-gdb-set breakpoint condition-evaluation target"'),
                            str(program)], tmp_path)  # fmt: skip
    assert "Breakpoint condition evaluation mode is auto (currently host)." in done.stdout
    assert "Using host evaluation mode instead." in done.stderr


def test_info_inferiors_and_connections_name_the_stub_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """The Connection column widens for `1 (remote HOST:PORT)`; an inferior added then is
    on it too, and loses it with the stub (kill over `target remote` closes it)."""
    program = builder.build("mi_prog")
    gdb, alice = _both(program, [
        "info connections", "target remote {target}", "info inferiors", "info connections", "info connections 2",
        "add-inferior", "info inferiors", "info connections", "kill", "info inferiors", "info connections",
    ], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "* 1    remote 127.0.0.1:PORT  Remote target using gdb-specific protocol \n" in alice
    assert "Added inferior 2 on connection 1 (remote 127.0.0.1:PORT)" in alice


def test_extended_remote_connection_outlives_the_program_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    gdb, alice = _both(program, [
        "target extended-remote {target}", "info inferiors", f"set remote exec-file {program}", "run",
        "info inferiors", "info connections",
    ], tmp_path, multi=True)  # fmt: skip
    assert alice == gdb
    assert "1 (extended-remote 127.0.0.1:PORT)" in alice


def test_remote_exec_file_is_what_extended_remote_runs_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """Unset, `run` asks the stub for its default program (none here: gdb's error, where the
    local program's path was run); set, the file named (a copy, the same build) runs."""
    program = builder.build("mi_prog")
    copy = tmp_path / "stub_side_copy"
    shutil.copy(program, copy)
    gdb, alice = _both(program, [
        "target extended-remote {target}", "show remote exec-file", "run", f"set remote exec-file {copy}",
        "show remote exec-file", 'interpreter-exec mi "-gdb-show remote exec-file"', "break add", "run", "bt 1",
        "info inferiors",
    ], tmp_path, multi=True)  # fmt: skip
    assert alice == gdb
    assert 'Running the default executable on the remote target failed; try "set remote exec-file"?' in alice
    assert f"\n{copy}\n" in alice and "Breakpoint 1, add (a=0, b=10)" in alice
