"""gdb's file transfer over a stub (remote.c, vFile: open, pread, pwrite, unlink, close):
-target-file-put/-get/-delete and the console's `remote put/get/delete` against a real
gdbserver, with gdb 13's records and messages; the bytes arrive whole, binary bytes the
protocol escapes included, across many packets. Natively: gdb's refusal. And `-info-os`
through the stub (qXfer:osdata), its empty table and its error for an unknown type."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.gdbserver import gdbserver
from tests.support.mi_script import both, transcript

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_PAYLOAD = bytes(range(256)) * 300 + b"$#}*"  # 76 KB: many packets, and each byte gdb escapes


def _console(text: str) -> str:
    return f'-interpreter-exec console "{text}"'


def _transfers(here: Path, there: Path) -> list[str]:
    """Copies out and back through the stub, then gdb's errors, in both languages."""
    return [
        f"-target-file-put {here / 'payload'} {there / 'put-mi'}",
        f"-target-file-get {there / 'put-mi'} {here / 'got-mi'}",
        f"-target-file-delete {there / 'put-mi'}",
        f"-target-file-get {there / 'nosuch'} {here / 'never'}",
        f"-target-file-delete {there / 'nosuch'}",
        f"-target-file-put {here / 'nosuch'} {there / 'never'}",
        f"-target-file-put {here / 'payload'} {there / 'no-dir' / 'x'}",
        f"-target-file-get {here / 'payload'} {here / 'no-dir' / 'x'}",
        "-target-file-get a", "-target-file-put a b c", "-target-file-delete", "-target-file-get -x a b",
        _console(f"remote put {here / 'payload'} {there / 'put-cli'}"),
        _console(f"remote get {there / 'put-cli'} {here / 'got-cli'}"),
        _console(f"remote delete {there / 'put-cli'}"),
        _console(f"remote get {there / 'nosuch'} {here / 'never'}"),
        _console("remote put a"), _console("remote get a b c"), _console("remote delete a b"),
        _console("remote"), _console("remote nosuch"), _console("remote del"),
        "-info-os", "-info-os nosuch", "-info-os msg",  # the stub's osdata (qXfer:osdata) over a link
        # directories: what fails where leaves what gdb leaves (an empty local or remote file)
        f"-target-file-get {there} {here / 'got-dir'}", f"-target-file-put {here} {there / 'put-dir'}",
        f"-target-file-put {here / 'payload'} {there}", f"-target-file-delete {there}",
    ]  # fmt: skip


def test_files_go_through_gdbserver_as_with_gdb(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    runs: dict[str, list[str]] = {}
    with gdbserver(None, multi=True) as server:
        for debugger in ("gdb", "ours"):
            here, there = tmp_path / debugger / "here", tmp_path / debugger / "there"
            here.mkdir(parents=True)
            there.mkdir()
            (here / "payload").write_bytes(_PAYLOAD)
            lines = transcript(debugger, prog, [f"-target-select extended-remote {server.address}",
                                                *_transfers(here, there)], tmp_path)  # fmt: skip
            # what connecting prints differs (gdb uploads gdbserver's trace state variables)
            runs[debugger] = [line.replace(f"/{debugger}/", "/D/") for line in lines[lines.index("^connected") + 1:]]
            assert (here / "got-mi").read_bytes() == _PAYLOAD and (here / "got-cli").read_bytes() == _PAYLOAD
            # all deleted but what the failed directory transfers made, as gdb leaves them
            assert [(path.name, path.stat().st_size, path.stat().st_mode & 0o777) for path in there.iterdir()] == [
                ("put-dir", 0, 0o700)]
            assert (here / "got-dir").stat().st_size == 0
    assert runs["ours"] == runs["gdb"]
    assert '~"Successfully sent file \\"' + str(tmp_path / "D" / "here" / "payload") + '\\".\\n"' in runs["ours"]


def test_natively_the_commands_are_refused_as_by_gdb(builder: Builder, tmp_path: Path) -> None:
    prog = builder.build("cli_prog")
    expected, got = both(prog, _transfers(tmp_path, tmp_path), tmp_path)
    assert got == expected
    assert '^error,msg="command can only be used with remote target"' in got
