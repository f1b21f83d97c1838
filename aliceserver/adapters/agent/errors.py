"""Tool errors: a stable code an agent can branch on, a message, and a hint for the next step.

Every protocol binding (MCP, the CLI) shows the same three fields; the codes never change
meaning, so agents and scripts may match on them.
"""

from __future__ import annotations

import enum
import re

from aliceserver.errors import AliceError, ProtocolError, TargetError, Unsupported


class ErrorCode(enum.Enum):
    BAD_ARGUMENT = "BAD_ARGUMENT"  # a missing, mistyped or out-of-range argument
    NO_SESSION = "NO_SESSION"  # no such session, or none at all
    AMBIGUOUS_SESSION = "AMBIGUOUS_SESSION"  # several sessions and none named
    NO_PROCESS = "NO_PROCESS"  # the session's program has exited (or was never started)
    NOT_STOPPED = "NOT_STOPPED"  # the program is running; inspection needs a stop
    NOT_STARTED = "NOT_STARTED"  # launched but held before its first instruction
    NO_SYMBOL = "NO_SYMBOL"  # an expression names something the program does not have
    NO_LOCATION = "NO_LOCATION"  # a location resolves nowhere
    NO_BREAKPOINT = "NO_BREAKPOINT"  # no breakpoint / watchpoint with that id
    NO_THREAD = "NO_THREAD"
    NO_FRAME = "NO_FRAME"
    NO_VARIABLE = "NO_VARIABLE"  # a variables path names nothing
    BAD_EXPRESSION = "BAD_EXPRESSION"  # a syntax error, or a value that cannot be computed
    MEMORY_ERROR = "MEMORY_ERROR"  # an address that is not mapped
    LAUNCH_FAILED = "LAUNCH_FAILED"
    ATTACH_FAILED = "ATTACH_FAILED"
    BAD_PATTERN = "BAD_PATTERN"  # a trace pattern that does not parse
    NO_TRACE = "NO_TRACE"  # the session traces nothing yet (debug_trace action=add first)
    UNSUPPORTED = "UNSUPPORTED"  # understood, but this backend cannot do it
    TARGET_ERROR = "TARGET_ERROR"  # the program or the OS refused, for another reason
    INTERNAL = "INTERNAL"  # a bug in the server: the message says what failed


class ToolError(AliceError):
    """A failed tool call, as the agent sees it."""

    def __init__(self, code: ErrorCode, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint

    def as_dict(self) -> dict[str, str]:
        reply = {"error": self.code.value, "message": self.message}
        if self.hint:
            reply["hint"] = self.hint
        return reply


_HINTS: dict[ErrorCode, str] = {
    ErrorCode.NO_SYMBOL: "check the spelling; debug_context lists the locals of the current "
    "frame, debug_variables scope=globals the globals",
    ErrorCode.BAD_EXPRESSION: "use C syntax: names, members (a.b, p->b), a[i], *p, &x, casts",
    ErrorCode.MEMORY_ERROR: "the address is not mapped in the program; check the pointer's value",
    ErrorCode.NOT_STOPPED: "call debug_pause to stop the program, or debug_continue to wait for "
    "it to stop",
    ErrorCode.NO_PROCESS: "the program is not running: debug_launch starts it again; "
    "debug_output still shows what it printed",
    ErrorCode.NO_THREAD: "debug_threads lists the threads",
    ErrorCode.NO_FRAME: "debug_stack lists the frames",
}

# Engine messages that mean one of the stable codes (the engine speaks gdb's words).
_PATTERNS: tuple[tuple[re.Pattern[str], ErrorCode], ...] = (
    (re.compile(r"No symbol|no symbol|not found", re.I), ErrorCode.NO_SYMBOL),
    (re.compile(r"Cannot access memory|not mapped|EIO", re.I), ErrorCode.MEMORY_ERROR),
    (re.compile(r"is running|interrupt it first", re.I), ErrorCode.NOT_STOPPED),
    (re.compile(r"not being run|no process|without a process|session is closed", re.I), ErrorCode.NO_PROCESS),
    (re.compile(r"^no thread", re.I), ErrorCode.NO_THREAD),
    (re.compile(r"no frame|frame level", re.I), ErrorCode.NO_FRAME),
    (re.compile(r"syntax error|cannot|invalid|not an lvalue|unknown", re.I), ErrorCode.BAD_EXPRESSION),
)


def classify(error: AliceError, default: ErrorCode = ErrorCode.TARGET_ERROR) -> ToolError:
    """The ToolError for an error the engine raised, by its type and gdb-style message."""
    if isinstance(error, ToolError):
        return error
    message = str(error) or type(error).__name__
    if isinstance(error, Unsupported):
        return ToolError(ErrorCode.UNSUPPORTED, message, "this backend cannot do it")
    code = default
    for pattern, candidate in _PATTERNS:
        if pattern.search(message):
            code = candidate
            break
    else:
        if isinstance(error, ProtocolError) and default is ErrorCode.TARGET_ERROR:
            code = ErrorCode.BAD_EXPRESSION
    if isinstance(error, TargetError) and code is ErrorCode.BAD_EXPRESSION:
        code = default  # a refusal of the OS is not a malformed expression
    return ToolError(code, message, _HINTS.get(code, ""))


def bad_argument(message: str, hint: str = "") -> ToolError:
    return ToolError(ErrorCode.BAD_ARGUMENT, message, hint)
