"""`initialize`'s capabilities follow the registered handlers: a request's capability is true
exactly when its requests have handlers, the rest is declared by the modules that honour it."""

from __future__ import annotations

import pytest

from aliceserver.adapters.dap.capabilities import (
    BASIC_REQUESTS,
    REQUEST_CAPABILITIES,
    REVERSE_REQUESTS,
    capabilities,
)
from aliceserver.adapters.dap.messages import Arguments
from aliceserver.adapters.dap.registry import Registry, default_registry
from aliceserver.adapters.dap.session import DapSession
from tests.support.dap_client import DapClient
from tests.support.dap_schema import DapSchema


def _nothing(session: DapSession, args: Arguments) -> None:
    return None


def _registry(*commands: str) -> Registry:
    registry = Registry()
    for command in commands:
        registry.add(command, _nothing)
    return registry


def test_each_request_capability_is_true_exactly_when_its_requests_have_handlers() -> None:
    registry = default_registry()
    answered = set(registry.commands())
    announced = capabilities(registry)
    for name, requests in REQUEST_CAPABILITIES.items():
        assert announced[name] is all(r in answered for r in requests), name
    # What the handlers answer today (change with them): no step back, restartFrame,
    # stepInTargets, terminateThreads or cancel.
    offered = {name for name in REQUEST_CAPABILITIES if announced[name]}
    assert offered == set(REQUEST_CAPABILITIES) - {
        "supportsStepBack",
        "supportsRestartFrame",
        "supportsStepInTargetsRequest",
        "supportsTerminateThreadsRequest",
        "supportsCancelRequest",
    }


def test_no_request_pair_is_half_answered() -> None:
    """A handler whose partner is missing would be one no client ever calls."""
    answered = set(default_registry().commands())
    for name, requests in REQUEST_CAPABILITIES.items():
        present = [r for r in requests if r in answered]
        assert not present or len(present) == len(requests), f"{name}: only {present}"


def test_adding_or_removing_a_handler_changes_what_initialize_says() -> None:
    commands = [c for c in default_registry().commands() if c != "restart"]
    without_restart = _registry(*commands)
    assert capabilities(without_restart)["supportsRestartRequest"] is False
    with_step_in_targets = _registry(*commands, "stepInTargets")
    assert capabilities(with_step_in_targets)["supportsStepInTargetsRequest"] is True
    assert capabilities(_registry("dataBreakpointInfo"))["supportsDataBreakpoints"] is False
    both = _registry("dataBreakpointInfo", "setDataBreakpoints")
    assert capabilities(both)["supportsDataBreakpoints"] is True


def test_a_request_capability_cannot_be_declared_without_its_handler() -> None:
    registry = Registry()
    with pytest.raises(ValueError, match="handlers"):
        registry.declare("supportsRestartRequest", True)
    registry.declare("supportsLogPoints", True)
    with pytest.raises(ValueError, match="already"):
        registry.declare("supportsLogPoints", False)
    assert capabilities(registry)["supportsLogPoints"] is True


def test_argument_capabilities_are_declared_by_their_handlers_modules() -> None:
    announced = capabilities(default_registry())
    for name in ("supportsConditionalBreakpoints", "supportsHitConditionalBreakpoints",
                 "supportsLogPoints", "supportsSteppingGranularity", "supportTerminateDebuggee",
                 "supportsValueFormattingOptions", "supportsDelayedStackTraceLoading",
                 "supportsEvaluateForHovers", "supportsClipboardContext"):  # fmt: skip
        assert announced[name] is True, name
    filters = {f["filter"] for f in announced["exceptionBreakpointFilters"]}
    assert {"signals", "cpp_throw", "cpp_catch", "rust_panic", "exec", "fork"} == filters


def test_every_request_of_the_specification_is_classified(schema: DapSchema) -> None:
    """A request the specification adds must get its capability here (or be listed as one
    that needs none), or its handler would go unannounced."""
    in_tables = {r for requests in REQUEST_CAPABILITIES.values() for r in requests}
    assert in_tables.isdisjoint(BASIC_REQUESTS)
    assert set(schema.requests) == in_tables | BASIC_REQUESTS | REVERSE_REQUESTS
    known = set(schema.definitions["Capabilities"]["properties"])
    assert set(capabilities(default_registry())) <= known


def test_initialize_answers_the_derived_capabilities(dap: DapClient) -> None:
    body = dap.call("initialize", {"adapterID": "alice"})
    assert body == capabilities(default_registry())
