"""The command -> handler table of one adapter instance (never getattr on wire strings)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aliceserver.adapters.dap.capabilities import REQUEST_CAPABILITIES
from aliceserver.adapters.dap.messages import Arguments

if TYPE_CHECKING:
    from aliceserver.adapters.dap.session import DapSession

# A handler returns the response body (None: no body) or raises an AliceError.
Handler = Callable[["DapSession", Arguments], "dict[str, Any] | None"]


@dataclass(frozen=True, slots=True)
class Route:
    command: str
    handler: Handler
    show_user: bool  # whether an error reply asks the client to show it to the user


class Registry:
    def __init__(self) -> None:
        self._routes: dict[str, Route] = {}
        self._declared: dict[str, Any] = {}

    def add(self, command: str, handler: Handler, *, show_user: bool = True) -> None:
        if command in self._routes:
            raise ValueError(f"a handler for {command!r} is registered already")
        self._routes[command] = Route(command, handler, show_user)

    def get(self, command: str) -> Route | None:
        return self._routes.get(command)

    def commands(self) -> list[str]:
        return sorted(self._routes)

    def declare(self, capability: str, value: Any) -> None:
        """A capability about arguments, not a request (conditions, formats...), declared by
        the module whose handlers honour it. A request's capability follows its handler."""
        if capability in REQUEST_CAPABILITIES:
            raise ValueError(f"{capability!r} follows its requests' handlers: register them")
        if capability in self._declared:
            raise ValueError(f"{capability!r} is declared already")
        self._declared[capability] = value

    def declared(self) -> dict[str, Any]:
        return dict(self._declared)


def default_registry() -> Registry:
    """Every request this adapter answers, from the handler modules."""
    # Imported here: the handler modules import the session for typing only, and building
    # a registry is the one place that needs them all.
    import aliceserver.adapters.dap.breakpoints as breakpoints
    import aliceserver.adapters.dap.execution as execution
    import aliceserver.adapters.dap.gcore as gcore
    import aliceserver.adapters.dap.inspection as inspection
    import aliceserver.adapters.dap.lifecycle as lifecycle
    import aliceserver.adapters.dap.memory as memory

    registry = Registry()
    for register in (lifecycle.register, breakpoints.register, execution.register,
                     inspection.register, memory.register, gcore.register):  # fmt: skip
        register(registry)
    return registry
