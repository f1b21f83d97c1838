"""`--cache-dir DIR` on every entry point (DAP, MCP, the CLI and its daemon; MI and the batch
console in test_cache_trouble.py), $ALICESERVER_CACHE_DIR, and `cache info` / `cache clear`
(aliceserver's and the CLI's): the indexes go where they are told, nowhere else."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from tests.integration.test_cli_daemon import WAIT, Cli, cli  # noqa: F401 - the fixture
from tests.support.adapter_process import alice_argv
from tests.support.agent_client import AgentClient, run_client, stdio_server_params
from tests.support.build import Builder
from tests.support.dap_session import spawned, start_session
from tests.support.mi_client import ROOT


@pytest.fixture(autouse=True)
def own_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The default cache (XDG_CACHE_HOME's) is a tmp dir, and must stay empty."""
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("ALICESERVER_CACHE_DIR", raising=False)
    yield home
    assert not list(home.rglob("*.idx")), "an index went to the default cache"


def _indexes(directory: Path) -> list[Path]:
    """The index files kept (not a writer's partial `.tmp-*.idx`: an index child killed at
    the session's end may leave one, which `cache info` counts apart)."""
    return sorted(p for p in directory.glob("*.idx") if not p.name.startswith("."))


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _aliceserver(*argv: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "aliceserver", *argv], capture_output=True, text=True,
                          timeout=120, env=env or _env(), stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_dap_keeps_indexes_in_its_cache_dir(builder: Builder, tmp_path: Path) -> None:
    cache = tmp_path / "dap-cache"
    with spawned(alice_argv("--cache-dir", str(cache)), stderr=tmp_path / "adapter.log") as dap:
        session = start_session(dap, builder.build("src_basic"), function_breakpoints=["loop_sum"])
        assert session.stop is not None and session.stop["body"]["reason"] == "function breakpoint"
    assert _indexes(cache)


def test_mcp_keeps_indexes_in_its_cache_dir(builder: Builder, tmp_path: Path) -> None:
    cache = tmp_path / "mcp-cache"
    default = stdio_server_params()
    params = StdioServerParameters(command=default.command, args=[*default.args, "--cache-dir", str(cache)],
                                   env=default.env, cwd=default.cwd)  # fmt: skip

    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=str(builder.build("src_basic")), breakpoints=["loop_sum"])
        stopped = await tools.call("debug_continue", timeout=60)
        assert stopped["location"]["function"] == "loop_sum"
        await tools.call("debug_stop")

    run_client(params, body)
    assert _indexes(cache)


def test_the_cli_daemon_keeps_indexes_in_its_cache_dir(cli: Cli, builder: Builder, tmp_path: Path) -> None:  # noqa: F811
    cache = tmp_path / "cli-cache"
    cli.ok("--cache-dir", str(cache), "start", str(builder.build("cli_prog")))
    cli.ok("break", "add")
    assert "stopped (breakpoint 1) in add" in cli.ok("continue", "--timeout", str(WAIT))
    cli.ok("stop")
    assert _indexes(cache)
    info = cli.ok("--cache-dir", str(cache), "cache", "info")
    assert f"cache directory: {cache}" in info and "binaries" in info
    assert "removed" in cli.ok("--cache-dir", str(cache), "cache", "clear")
    assert not _indexes(cache)


def test_cache_info_and_clear(builder: Builder, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    program = str(builder.build("calls"))
    env = dict(_env(), ALICESERVER_CACHE_DIR=str(cache))  # the variable, as --cache-dir
    out = _aliceserver("-batch", "-ex", "break leaf", "-ex", "run", program, env=env)
    assert "Breakpoint 1, leaf (x=" in out
    kept = _indexes(cache)
    assert kept
    stranger = cache / "notes.txt"  # not ours: neither counted nor removed
    stranger.write_text("mine")
    info = _aliceserver("cache", "info", "--cache-dir", str(cache))
    lines = info.splitlines()
    assert lines[0] == f"cache directory: {cache}"
    assert lines[1].startswith("size: ") and "of at most 1024.0 MB" in lines[1]
    assert lines[2].startswith("entries: ") and f" binaries, {len(kept)} files" in lines[2]
    entries = [line for line in lines[3:] if line.startswith("  b-") or line.startswith("  p-")]
    assert entries and all("used " in line for line in entries)
    cleared = _aliceserver("--cache-dir", str(cache), "cache", "clear")
    assert cleared.startswith("removed ") and str(cache) in cleared
    assert not _indexes(cache) and stranger.read_text() == "mine"
    assert "entries: 0 binaries, 0 files" in _aliceserver("cache", "info", env=env)
