"""A crash as a trace event: signal, fault address, registers, backtrace, and the locals of
the crashing frame (the innermost one with source: a fault inside libc's strlen is
described where the program called it)."""

from __future__ import annotations

import json
import logging
from typing import Any

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import VariableScope
from aliceserver.errors import AliceError
from aliceserver.tracing.store import Row

log = logging.getLogger(__name__)

MAX_FRAMES = 32
_REGISTERS = ("rip", "rsp", "rbp", "rax", "rbx", "rcx", "rdx", "rsi", "rdi",
              "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "eflags")  # fmt: skip


def crash_details(debugger: IDebugger, stop: Stopped) -> dict[str, Any]:
    """What the program looked like when it crashed (the program is stopped there)."""
    tid = stop.thread_id
    details: dict[str, Any] = {
        "signal": stop.signal_name,
        "description": stop.description,
        "fault_address": stop.fault.address if stop.fault is not None else None,
        "fault": stop.fault.description if stop.fault is not None else None,
        "pc": stop.address,
    }
    try:
        values = debugger.read_registers(tid).values
        details["registers"] = {name: f"{values[name]:#x}" for name in _REGISTERS if name in values}
    except AliceError as error:
        details["registers_error"] = str(error)
    try:
        frames = debugger.stack_trace(tid, 0, MAX_FRAMES)
    except AliceError as error:
        details["backtrace_error"] = str(error)
        return details
    details["backtrace"] = [
        {
            "level": f.level, "pc": f"{f.pc:#x}", "function": f.function,
            "file": f.source.path if f.source else None, "line": f.source.line if f.source else None,
        }  # fmt: skip
        for f in frames
    ]
    frame = next((f for f in frames if f.source is not None), None)
    if frame is not None:
        details["frame"] = frame.level
        for scope in (VariableScope.ARGUMENTS, VariableScope.LOCALS):
            try:
                variables = debugger.frame_variables(tid, frame.level, scope)
                named: dict[str, str] = {}
                for v in variables:  # a shadowed local comes after the one hiding it
                    named.setdefault(v.name, v.value)
                details[scope.value] = named
            except AliceError as error:
                details[f"{scope.value}_error"] = str(error)
    return details


def crash_row(debugger: IDebugger, stop: Stopped, now_ns: int, open_call: int | None) -> Row:
    details = crash_details(debugger, stop)
    where = details.get("backtrace", [{}])
    frame = where[details.get("frame", 0)] if where and details.get("frame") is not None else (where[0] if where else {})
    text = f"{stop.signal_name or 'crash'} ({details.get('fault') or stop.description})"
    if details.get("fault_address") is not None:
        text += f" at {details['fault_address']:#x}"
    if frame.get("function"):
        text += f" in {frame['function']}"
        if frame.get("file"):
            text += f" ({frame['file']}:{frame['line']})"
    return (
        "crash", now_ns, stop.thread_id, frame.get("function"), frame.get("file"), frame.get("line"),
        None, open_call, None, None, None, None, text, json.dumps(details),
    )  # fmt: skip
