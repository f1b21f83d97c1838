"""Run a module's scenarios with jump patches on and off (`set breakpoint jump-patches`):
the in-process engine's default, and the servers the batch and MI helpers start."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from aliceserver.debuggers.ptrace.patched_breakpoints import JumpPatches
from tests.support import batch
from tests.support.mi_client import MiClient


@pytest.fixture(params=["on", "off"])
def jump_patches(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """`on` or `off`: every engine and server the test makes starts with that setting."""
    setting = ["-iex", f"set breakpoint jump-patches {request.param}"]
    monkeypatch.setattr(JumpPatches, "enabled_at_start", request.param == "on")
    ours = batch.ours
    monkeypatch.setattr(batch, "ours", lambda args, cwd: ours([*setting, *args], cwd))
    start = MiClient.__init__

    def start_with_setting(self: MiClient, args: list[str], *rest: Any, **options: Any) -> None:
        start(self, args if options.get("gdb") else [*setting, *args], *rest, **options)

    monkeypatch.setattr(MiClient, "__init__", start_with_setting)
    yield request.param
