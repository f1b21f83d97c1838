"""A program built elsewhere (its sources moved after the build), in gdb's front ends:
without help its frames keep their lines and say the file is missing as gdb does; `set
substitute-path`, `directory` and `-environment-directory` find it, and a breakpoint on the
file's local path binds. Each scenario is run under gdb 13 in the same test and compared."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb, ours
from tests.support.build import marker_line
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import parse_record
from tests.support.moved import NAME, Moved, build_moved

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

TWICE = marker_line(NAME, "twice")
LOOP = marker_line(NAME, "loop")


@pytest.fixture(scope="module")
def moved(tmp_path_factory: pytest.TempPathFactory) -> Moved:
    return build_moved(tmp_path_factory.mktemp("moved"))


def _batch(moved: Moved, *commands: str) -> list[str]:
    args: list[str] = []
    for command in commands:
        args += ["-ex", command]
    return [*args, str(moved.program)]


def test_missing_source_keeps_lines_and_says_so_like_gdb(moved: Moved) -> None:
    got = assert_like_gdb(_batch(
        moved, f"break {NAME}:{TWICE}", "run", "bt", "frame", "show directories",
        "show substitute-path",
    ), moved.program.parent)  # fmt: skip
    # the first visit of the missing file is an error, the next ones say `in FILE`
    assert f"{TWICE}\t{moved.built_source}: No such file or directory." in got.stderr
    assert f"{TWICE}\tin {moved.built_source}" in got.stdout.splitlines()


def test_substitute_path_rules_and_their_errors_like_gdb(moved: Moved) -> None:
    build, local = moved.build_dir, moved.local_dir
    assert_like_gdb(_batch(
        moved, f"set substitute-path {build.parent} /nowhere", f"set substitute-path {build}/ {local}",
        "show substitute-path", f"show substitute-path {moved.built_source}", "show substitute-path /elsewhere",
        "set substitute-path", "set substitute-path a", "set substitute-path a b c", 'set substitute-path "" b',
        "unset substitute-path /nope", "unset substitute-path a b", "show substitute-path a b",
        f"unset substitute-path {build.parent}", "show substitute-path",
        f"break {moved.local_source}:{LOOP}", "run", "frame", "unset substitute-path", "show substitute-path",
    ), moved.program.parent)  # fmt: skip


def test_mapped_breakpoint_binds_and_source_shows_like_gdb(moved: Moved) -> None:
    got = assert_like_gdb(_batch(
        moved, f"set substitute-path {moved.build_dir} {moved.local_dir}",
        f"break {moved.local_source}:{LOOP}", f"break {NAME}:{TWICE}", "run", "bt 1", "continue",
    ), moved.program.parent)  # fmt: skip
    lines = got.stdout.splitlines()
    assert f"{TWICE}\t  return x * 2; /* @bp:twice */" in lines
    info = ours(["-batch", "-nx", *_batch(moved, f"set substitute-path {moved.build_dir} {moved.local_dir}",
                                          f"break {NAME}:{TWICE}", "run", "info source")],
                moved.program.parent)  # fmt: skip
    assert f"Located in {moved.local_source}" in info.stdout.splitlines()


def test_directory_finds_the_file_like_gdb(moved: Moved) -> None:
    assert_like_gdb(_batch(
        moved, f"break {NAME}:{TWICE}", "run", f"directory {moved.local_dir} /no/such/dir", "show directories",
        "frame", f"break {moved.local_source}:{LOOP}", "directory", "show directories",
        f"directory {moved.local_dir}:{moved.build_dir.parent}", "show directories",
    ), moved.program.parent)  # fmt: skip


def _mi_session(moved: Moved, gdb: bool) -> dict[str, Any]:
    """What MI says of the missing and then the mapped file, under gdb or us."""
    client = MiClient(["-nx", "-q", "-i=mi", str(moved.program)], cwd=moved.program.parent, gdb=gdb)
    seen: dict[str, Any] = {}
    try:
        client.prompt()
        client.ok(f"-break-insert {NAME}:{TWICE}")
        client.ok("-exec-run")
        lines = client.read_until(lambda line: line.startswith("*stopped"))
        stop = parse_record(lines[-1])
        seen["log"] = [parse_record(line).text for line in lines if line.startswith("&")]
        seen["stop_frame"] = {k: stop.results["frame"][k] for k in ("file", "fullname", "line")}
        seen["found_by_directory"] = client.ok(f"-environment-directory {moved.local_dir}").results["source-path"]
        seen["frame_in_directory"] = client.ok("-stack-info-frame").results["frame"]["fullname"]
        seen["reset"] = client.ok("-environment-directory -r").results["source-path"]
        client.ok(f'-interpreter-exec console "set substitute-path {moved.build_dir} {moved.local_dir}"')
        frame = client.ok("-stack-info-frame").results["frame"]
        seen["mapped_frame"] = {k: frame[k] for k in ("file", "fullname", "line")}
        source = client.ok("-file-list-exec-source-file").results
        seen["source_file"] = {k: source[k] for k in ("file", "fullname")}
        bkpt = client.ok(f"-break-insert {moved.local_source}:{LOOP}").results["bkpt"]
        seen["mapped_bkpt"] = {k: bkpt[k] for k in ("func", "file", "fullname", "line")}
    finally:
        client.close()
    return seen


def test_mi_fullnames_and_missing_file_like_gdb(moved: Moved) -> None:
    expected, got = _mi_session(moved, gdb=True), _mi_session(moved, gdb=False)
    expected["log"] = [text for text in expected["log"] if "libthread_db" not in text]
    assert got == expected
    assert got["mapped_frame"]["fullname"] == str(moved.local_source)
