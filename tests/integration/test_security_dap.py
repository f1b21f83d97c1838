"""What a DAP client can make the server do: programs start without a shell (arguments
arrive as given, nothing expands or runs), and a TCP listener binds to loopback unless
told otherwise."""

from __future__ import annotations

from pathlib import Path

from tests.support.adapter_process import alice_argv
from tests.support.build import Builder
from tests.support.dap_server import DapServerProcess
from tests.support.dap_session import launch_arguments, spawned, start_session
from tests.support.procs import listening_addresses

HOSTILE = ["$HOME", "a;touch injected-1", "`touch injected-2`", "$(touch injected-3)", "*",
           "|touch injected-4", "&& touch injected-5", "'quoted'", ">injected-6"]  # fmt: skip


def _output(events: list[dict[str, object]]) -> str:
    return "".join(str(e["body"]["output"]) for e in events  # type: ignore[index]
                   if e["event"] == "output")  # fmt: skip


def test_launch_uses_no_shell(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("showenv")
    with spawned(alice_argv(), check=True, validate=True) as client:
        start_session(client, program, launch=launch_arguments(program, args=HOSTILE, cwd=tmp_path))
        client.wait_event("terminated")
        output = _output(client.events)
    for index, arg in enumerate(HOSTILE, 1):
        assert f"arg[{index}]={arg}\n" in output
    assert list(tmp_path.iterdir()) == [], "a shell ran: files were created"


def test_args_as_one_string_are_split_not_interpreted(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("showenv")
    line = "one 'two words' $HOME `touch injected` ;touch injected2"
    with spawned(alice_argv(), check=True, validate=True) as client:
        start_session(client, program, launch=launch_arguments(program, cwd=tmp_path) | {"args": line})
        client.wait_event("terminated")
        output = _output(client.events)
    expected = ["one", "two words", "$HOME", "`touch", "injected`", ";touch", "injected2"]
    for index, arg in enumerate(expected, 1):
        assert f"arg[{index}]={arg}\n" in output
    assert list(tmp_path.iterdir()) == []


def test_listener_binds_loopback_by_default(tmp_path: Path) -> None:
    server = DapServerProcess.start(tmp_path / "server.log")
    try:
        assert listening_addresses(server.port) == ["0100007F"]  # 127.0.0.1
        assert "WARNING" not in (tmp_path / "server.log").read_text()
    finally:
        server.stop()
