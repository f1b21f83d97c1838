"""Every entry point hands its front end the one engine factory (aliceserver.engines): MI as
DAP and MCP do."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import pytest

import aliceserver.adapters.dap as dap
import aliceserver.adapters.mi.main as mi_main
import aliceserver.serve as serve
from aliceserver.__main__ import main
from aliceserver.engines import debugger_factory, ptrace_debugger


class Handed(Exception):
    """Raised by a stand-in front end with the factory it was given."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        super().__init__("handed")
        self.factory = factory


def test_gdbs_command_line_gives_mi_the_shared_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    """MI parses --cache-dir with gdb's options, so it is given the factory's maker."""

    def front_end(argv: list[str], factory_for: Callable[[str | None], Any]) -> int:
        assert argv == ["-q", "-batch", "prog"]
        raise Handed(factory_for(None))

    monkeypatch.setattr(mi_main, "main", front_end)
    with pytest.raises(Handed) as handed:
        main(["-q", "-batch", "prog"])
    assert handed.value.factory is ptrace_debugger is debugger_factory(None)


def test_dap_gets_the_same_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    def build(config: dap.DapServerConfig) -> object:
        raise Handed(config.debugger_factory)

    monkeypatch.setattr(dap, "build_dap_server", build)
    monkeypatch.setattr(serve, "configure_logging", lambda *args: None)
    options = argparse.Namespace(log_file=None, log_level="WARNING", port=None, cache_dir=None)
    with pytest.raises(Handed) as handed:
        serve.serve_dap(options)
    assert handed.value.factory is ptrace_debugger


def test_mcp_gets_the_same_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    server = pytest.importorskip("aliceserver.adapters.mcp.server", reason="the mcp extra")
    import aliceserver.serve_mcp as serve_mcp

    def serve_stdio(factory: Callable[[], Any]) -> int:
        raise Handed(factory)

    monkeypatch.setattr(server, "serve_stdio", serve_stdio)
    monkeypatch.setattr(serve_mcp, "configure_logging", lambda *args: None)
    options = argparse.Namespace(log_file=None, log_level="WARNING", cache_dir=None)
    with pytest.raises(Handed) as handed:
        serve_mcp.serve_mcp(options)
    assert handed.value.factory is ptrace_debugger
