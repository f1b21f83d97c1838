"""What every tool module shares: the environment, the common parameters and small helpers."""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass, field

from aliceserver.adapters.agent.budget import Budget
from aliceserver.adapters.agent.errors import ErrorCode, ToolError, bad_argument
from aliceserver.adapters.agent.registry import Args, Param
from aliceserver.adapters.agent.session import DebugSession
from aliceserver.adapters.agent.sessions import SessionManager
from aliceserver.adapters.agent.source import SourceCache
from aliceserver.debuggers.model import StackFrame

DEFAULT_TIMEOUT = 10.0  # seconds an execution tool waits for the next stop
MAX_TIMEOUT = 600.0


@dataclass(slots=True)
class ToolEnv:
    sessions: SessionManager
    budget: Budget = field(default_factory=Budget)
    sources: SourceCache = field(default_factory=SourceCache)
    trace_directory: str | None = None  # where trace stores go (None: the tracing default)

    def session(self, args: Args) -> DebugSession:
        return self.sessions.get(args.text("session"))


SESSION = Param(
    "session", "string", "Session id from debug_launch/debug_attach (e.g. prog-1); "
    "may be left out while only one session exists."
)
THREAD = Param("thread", "integer", "Thread id (default: the thread that last stopped).", minimum=1)
FRAME = Param(
    "frame", "integer", "Stack frame: 0 is the innermost (default), 1 its caller...", minimum=0
)
TIMEOUT = Param(
    "timeout", "number",
    f"Seconds to wait for the program to stop (default {DEFAULT_TIMEOUT:g}); if it is still "
    "running then, the reply says so and the program keeps running.",
    minimum=0, maximum=MAX_TIMEOUT,
)


def thread_of(session: DebugSession, args: Args) -> int:
    return args.integer("thread") or session.current_thread


def frame_of(session: DebugSession, args: Args) -> int:
    """The frame asked for, else the one debug_select chose (0 after every stop)."""
    level = args.integer("frame")
    if level is not None:
        return level
    other_thread = args.integer("thread") not in (None, session.current_thread)
    return 0 if other_thread else session.current_frame


def timeout_of(args: Args) -> float:
    value = args.number("timeout")
    return DEFAULT_TIMEOUT if value is None else value


def frame_text(frame: StackFrame) -> str:
    """`#1 main (prog.c:42)`, or with the module and pc where there is no line info."""
    name = frame.function or frame.symbol.name or "??"
    if frame.signal_trampoline:
        name = "<signal handler called>"
    if frame.source is not None:
        where = f"{os.path.basename(frame.source.path)}:{frame.source.line}"
    else:
        where = f"{os.path.basename(frame.module) if frame.module else '?'} {frame.pc:#x}"
    inlined = " [inlined]" if frame.inlined else ""
    return f"#{frame.level} {name}{inlined} ({where})"


def location_of(frame: StackFrame) -> dict[str, object]:
    where: dict[str, object] = {"function": frame.function or frame.symbol.name or "??"}
    if frame.source is not None:
        where["file"] = frame.source.path
        where["line"] = frame.source.line
    elif frame.module:
        where["module"] = frame.module
    where["address"] = f"{frame.pc:#x}"
    return where


def parse_int(text: str) -> int | None:
    """A number in C syntax (42, 0x2a, -1), or None."""
    try:
        return int(text.strip(), 0)
    except ValueError:
        return None


_POINTER = re.compile(r"(?:\([^)]*\)\s*)?(0x[0-9a-fA-F]+)")


def pointer_value(value: str) -> int | None:
    """The address in a formatted pointer (`0x7ffe...`, `(int *) 0x...`, `0x... "text"`)."""
    match = _POINTER.match(value.strip())
    return int(match.group(1), 16) if match else None


def decode_scalar(data: bytes, type_name: str) -> str:
    """Raw little-endian bytes of a watched value, shown as its C type would be."""
    kind = re.sub(r"\b(const|volatile)\b", "", type_name).strip()
    if "*" in kind:
        return f"{int.from_bytes(data, 'little'):#x}"
    if kind in ("float", "double") and len(data) in (4, 8):
        return repr(struct.unpack("<f" if len(data) == 4 else "<d", data)[0])
    integral = ("int", "long", "short", "char", "bool", "_Bool", "size_t", "enum")
    if any(word in kind for word in integral) and len(data) in (1, 2, 4, 8):
        signed = "unsigned" not in kind and "size_t" not in kind and kind not in ("_Bool", "bool")
        return str(int.from_bytes(data, "little", signed=signed))
    return data.hex(" ")


def require_location(location: str | None) -> str:
    if not location or not location.strip():
        raise bad_argument(
            "a location is needed",
            "file:line (prog.c:42), a function name (main), or an address (0x401136)",
        )
    text = location.strip()
    return f"*{text}" if parse_int(text) is not None and not text.startswith("*") else text


def no_location(location: str) -> ToolError:
    return ToolError(
        ErrorCode.NO_LOCATION,
        f"{location!r} matches no code in the program",
        "use file:line with a line that has code, a function name, or *ADDRESS; "
        "the file name may be the base name (prog.c:42)",
    )
