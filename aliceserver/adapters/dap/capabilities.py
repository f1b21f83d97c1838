"""What this adapter tells the client it can do (only what works)."""

from __future__ import annotations

from typing import Any

from aliceserver.debuggers.model import CatchKind

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


def capabilities() -> dict[str, Any]:
    return {
        "supportsConfigurationDoneRequest": True,
        "supportsFunctionBreakpoints": True,
        "supportsConditionalBreakpoints": True,
        "supportsHitConditionalBreakpoints": True,
        "supportsLogPoints": True,
        "supportsEvaluateForHovers": True,
        "supportsClipboardContext": True,
        "exceptionBreakpointFilters": [
            {"filter": name, "label": label, "description": text, "default": default}
            for name, (label, text, default, _) in EXCEPTION_FILTERS.items()
        ],
        "supportsExceptionInfoRequest": True,
        "supportsSetVariable": True,
        "supportsSetExpression": True,
        "supportsCompletionsRequest": True,
        "supportsModulesRequest": True,
        "supportsRestartRequest": True,
        "supportsTerminateRequest": True,
        "supportTerminateDebuggee": True,
        "supportsDelayedStackTraceLoading": True,
        "supportsValueFormattingOptions": True,
        "supportsDataBreakpoints": True,
        "supportsInstructionBreakpoints": True,
        "supportsReadMemoryRequest": True,
        "supportsWriteMemoryRequest": True,
        "supportsDisassembleRequest": True,
        "supportsBreakpointLocationsRequest": True,
        "supportsSteppingGranularity": True,
        # Not offered: no engine support (step back, goto, restart frame, step-in targets,
        # thread termination, cancel, loaded sources listing, suspend on disconnect).
        "supportsStepBack": False,
        "supportsGotoTargetsRequest": True,
        "supportsRestartFrame": False,
        "supportsStepInTargetsRequest": False,
        "supportsTerminateThreadsRequest": False,
        "supportsCancelRequest": False,
        "supportsLoadedSourcesRequest": True,
        "supportSuspendDebuggee": False,
    }
