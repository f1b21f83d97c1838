"""Values gdb 13 prints only in part, printed as it does: a library container read from
unreadable memory inside a struct ends that struct's print at the container's first
element with `<error reading variable: ...>` (the rest of the struct unshown, the struct
around it going on; the whole print failed here before), laid out by `set print pretty on`
as gdb's; and a string whose length counts a NUL at its end shows one NUL fewer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.core_backend import core_of_stop
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session
from tests.support.gdb import gdb_env, gdb_outputs_at, gdb_path
from tests.support.mi_console import console_at

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

SOURCE = PROGRAMS_DIR / "cpp_partial_prints.cpp"
MAIN = marker_line(SOURCE, "main")
LOCATION = f"cpp_partial_prints.cpp:{MAIN}"
PARTIAL = "items = std::vector of length 5, capacity 5 = {<error reading variable: Cannot access memory at address 0x10>"
COMMANDS = ["print *wrapped", "print *outer", "print several", "print/x *outer", "output outer->inner",
            "print one_nul", "print two_nuls", "print inner_nul", "info locals",
            "set print pretty on", "print *outer", "print *wrapped", "print several"]  # fmt: skip


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_partial_prints", (*CPP_FLAGS, "-std=c++17"))


def gdb_outputs(program: Path, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, LOCATION, commands)


@pytest.mark.both_backends
def test_console_prints_like_gdb(program: Path, backend: str, tmp_path: Path) -> None:
    expected = gdb_outputs(program, COMMANDS)
    if "std::vector of length" not in expected[2]:
        pytest.skip(f"gdb prints no libstdc++ printers here (not installed?): {expected[2]}")
    assert expected[1] == "$2 = {inner = {before = 0, " + PARTIAL + ", tail = 7}"
    assert expected[5:8] == ['$5 = "trail"', '$6 = "ab\\000"', '$7 = "a\\000b"']
    got = console_at(program, LOCATION, COMMANDS, gdb_env(), core_of_stop(backend, tmp_path))
    assert list(zip(COMMANDS, got, strict=True)) == list(zip(COMMANDS, expected, strict=True))


def test_dap_shows_the_part_printed(program: Path) -> None:
    """A DAP client sees the struct as gdb prints it, the error in place of its rest, and
    the string without its terminator."""
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, program, breakpoints={SOURCE: [MAIN]})
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]
        outer = client.call("evaluate", {"expression": "*outer", "frameId": frame, "context": "watch"})
        assert outer["result"] == "{inner = {before = 0, " + PARTIAL + ", tail = 7}"
        string = client.call("evaluate", {"expression": "one_nul", "frameId": frame, "context": "watch"})
        assert string["result"] == '"trail"'
        client.assert_valid()
