"""What this adapter tells the client it can do (only what works)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aliceserver.debuggers.model import CatchKind

if TYPE_CHECKING:
    from aliceserver.adapters.dap.registry import Registry

# filter id -> (label, description, default, catchpoint or None for the signal filter)
EXCEPTION_FILTERS: dict[str, tuple[str, str, bool, CatchKind | None]] = {
    "signals": (
        "Signals",
        "Stop when the program receives a signal such as SIGUSR1 or SIGINT "
        "(crashes such as SIGSEGV always stop)",
        True,
        None,
    ),
    "cpp_throw": ("C++: on throw", "Stop when a C++ exception is thrown", False, CatchKind.THROW),
    "cpp_catch": ("C++: on catch", "Stop when a C++ exception is caught", False, CatchKind.CATCH),
    "rust_panic": ("Rust: on panic", "Stop when a Rust panic starts", False, CatchKind.PANIC),
    "exec": ("On exec", "Stop when the program executes a new program", False, CatchKind.EXEC),
    "fork": ("On fork", "Stop when the program forks", False, CatchKind.FORK),
}


# Capability -> the requests it announces. Derived, never declared: a capability is true
# exactly when every one of its requests has a handler, so adding or removing a handler
# changes what `initialize` says (the DAP specification 1.70 pairs them so).
REQUEST_CAPABILITIES: dict[str, tuple[str, ...]] = {
    "supportsConfigurationDoneRequest": ("configurationDone",),
    "supportsFunctionBreakpoints": ("setFunctionBreakpoints",),
    "supportsStepBack": ("stepBack", "reverseContinue"),
    "supportsSetVariable": ("setVariable",),
    "supportsRestartFrame": ("restartFrame",),
    "supportsGotoTargetsRequest": ("gotoTargets", "goto"),
    "supportsStepInTargetsRequest": ("stepInTargets",),
    "supportsCompletionsRequest": ("completions",),
    "supportsModulesRequest": ("modules",),
    "supportsRestartRequest": ("restart",),
    "supportsExceptionInfoRequest": ("exceptionInfo",),
    "supportsLoadedSourcesRequest": ("loadedSources",),
    "supportsTerminateThreadsRequest": ("terminateThreads",),
    "supportsSetExpression": ("setExpression",),
    "supportsTerminateRequest": ("terminate",),
    "supportsDataBreakpoints": ("dataBreakpointInfo", "setDataBreakpoints"),
    "supportsReadMemoryRequest": ("readMemory",),
    "supportsWriteMemoryRequest": ("writeMemory",),
    "supportsDisassembleRequest": ("disassemble",),
    "supportsCancelRequest": ("cancel",),
    "supportsBreakpointLocationsRequest": ("breakpointLocations",),
    "supportsInstructionBreakpoints": ("setInstructionBreakpoints",),
}

# The specification's requests that no capability announces: every adapter answers the
# first, the client answers the reverse ones.
BASIC_REQUESTS = frozenset({
    "initialize", "launch", "attach", "disconnect", "setBreakpoints",
    "setExceptionBreakpoints", "continue", "next", "stepIn", "stepOut", "pause",
    "stackTrace", "scopes", "variables", "source", "threads", "evaluate", "locations",
})  # fmt: skip
REVERSE_REQUESTS = frozenset({"runInTerminal", "startDebugging"})


def exception_filters() -> list[dict[str, Any]]:
    """`exceptionBreakpointFilters`, as setExceptionBreakpoints understands them."""
    return [
        {"filter": name, "label": label, "description": text, "default": default}
        for name, (label, text, default, _) in EXCEPTION_FILTERS.items()
    ]


def capabilities(registry: Registry) -> dict[str, Any]:
    """The `initialize` response body: what the registered handlers answer, and what their
    modules declared they honour in arguments (conditions, formats, granularity...)."""
    answered = set(registry.commands())
    body: dict[str, Any] = {
        name: all(request in answered for request in requests)
        for name, requests in REQUEST_CAPABILITIES.items()
    }
    body.update(registry.declared())
    return body
