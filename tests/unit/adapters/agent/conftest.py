"""Agent tools over fake debuggers, called through the registry as a front end would."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.agent.registry import ToolRegistry
from aliceserver.adapters.agent.sessions import SessionManager
from tests.support.fake_debugger import FakeDebugger


class Tools:
    """Calls tools and checks that they succeed (`call`) or fail with a code (`fail`)."""

    def __init__(self, registry: ToolRegistry, sessions: SessionManager) -> None:
        self.registry = registry
        self.sessions = sessions
        self.fakes: list[FakeDebugger] = []

    def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        reply = self.registry.call(name, arguments)
        assert not reply.is_error, reply.data
        return reply.data

    def fail(self, code: str, name: str, **arguments: Any) -> dict[str, Any]:
        reply = self.registry.call(name, arguments)
        assert reply.is_error, reply.data
        assert reply.data["error"] == code, reply.data
        return reply.data


@pytest.fixture
def tools() -> Iterator[Tools]:
    made: list[FakeDebugger] = []

    def factory() -> FakeDebugger:
        made.append(FakeDebugger())
        return made[-1]

    registry, sessions = build_tools(factory)
    result = Tools(registry, sessions)
    result.fakes = made
    try:
        yield result
    finally:
        sessions.close_all()
