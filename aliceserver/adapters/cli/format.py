"""Tool replies as compact text for the terminal (and for agents that read it): the
context view (a location header, the source window with `->`, a locals table), one line
per frame, breakpoint, event... Anything without a view of its own goes through the agent
layer's generic `render`; `--json` skips all this and prints the reply itself."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from typing import Any

from aliceserver.adapters.agent.render import render

Formatter = Callable[[dict[str, Any]], list[str]]

CONTEXT_TOOLS = frozenset({
    "debug_launch", "debug_attach", "debug_core", "debug_connect", "debug_continue", "debug_step", "debug_run_to",
    "debug_pause", "debug_context", "debug_select", "debug_wait", "debug_restart",
})  # fmt: skip


def _where(location: dict[str, Any]) -> str:
    text = str(location.get("function", "??"))
    if "file" in location:
        text += f" at {os.path.basename(str(location['file']))}:{location.get('line')}"
    elif "module" in location:
        text += f" in {os.path.basename(str(location['module']))} {location.get('address', '')}"
    return text


def _table(values: dict[str, Any], indent: str = "  ") -> list[str]:
    width = min(max((len(name) for name in values), default=0), 24)
    return [f"{indent}{name:<{width}} = {value}" for name, value in values.items()]


def _indented(text: str, indent: str = "  ") -> list[str]:
    return [f"{indent}{line}" for line in text.rstrip("\n").split("\n")]


def _stop_lines(stop: dict[str, Any]) -> list[str]:
    lines = []
    for key in ("description", "signal", "fault", "fault_address"):
        if key in stop and not (key == "description" and stop.get("reason") == "step"):
            lines.append(f"  {key.replace('_', ' ')}: {stop[key]}")
    watch = stop.get("watch")
    if isinstance(watch, dict) and "expression" in watch:
        lines.append(f"  watch {watch.get('id')}: {watch['expression']}: {watch.get('old')} -> {watch.get('new')}")
    for gone in stop.get("watches_deleted") or ():
        if isinstance(gone, dict):
            lines.append(f"  watch {gone.get('id')} deleted: {gone.get('expression', '?')}: {gone.get('why', 'its frame returned')}")
    returned = stop.get("returned")
    if isinstance(returned, dict):
        lines.append(f"  returned: ({returned.get('type')}) {returned.get('value')}")
    return lines


def context_lines(data: dict[str, Any]) -> list[str]:
    session, state = data.get("session", "?"), data.get("state", "?")
    stop = data.get("stop")
    head = f"{session}: {state}"
    if isinstance(stop, dict):
        reason = str(stop.get("reason"))
        if stop.get("breakpoints"):
            reason += " " + ", ".join(str(b) for b in stop["breakpoints"])
        head = f"{session}: stopped ({reason})"
    if isinstance(data.get("location"), dict):
        head += f" in {_where(data['location'])}"
    if "thread" in data:
        head += f", thread {data['thread']}"
    if data.get("frame"):
        head += f", frame {data['frame']}"
    if "pid" in data:
        head += f" (pid {data['pid']})"
    lines = [head]
    if isinstance(stop, dict):
        lines += _stop_lines(stop)
    for key in ("exit", "message", "restarted", "steps_done", "breakpoints_failed",
                "watchpoints_dropped", "traces_dropped", "hint"):  # fmt: skip
        if key in data:
            lines.append(f"{key.replace('_', ' ')}: {data[key]}")
    if isinstance(data.get("breakpoints"), list):
        lines += [f"breakpoint {b['id']}: {', '.join(b.get('resolved', [])) or b.get('location')}"
                  for b in data["breakpoints"]]  # fmt: skip
    if "source" in data:
        lines += str(data["source"]).split("\n")
    stack = data.get("stack")
    if isinstance(stack, list) and len(stack) > 1:
        lines.append("stack: " + "  <-  ".join(str(f) for f in stack[1:]))
    local_values = data.get("locals")
    if isinstance(local_values, dict):
        changed = data.get("changed") or {}
        lines.append("locals:" if local_values else "locals: none")
        shown = {
            name: f"{value}   (was {changed[name]['was']})" if name in changed else value
            for name, value in local_values.items()
        }
        lines += _table(shown)
    output = data.get("output")
    if isinstance(output, dict) and output.get("text"):
        lines.append("output:")
        lines += _indented(str(output["text"]), "| ")
    return lines


def _stack(data: dict[str, Any]) -> list[str]:
    lines = []
    for frame in data.get("frames", []):
        if isinstance(frame, dict):
            lines.append(str(frame.get("frame")))
            lines += _table(frame.get("locals") or {}, "      ")
        else:
            lines.append(str(frame))
    return lines


def _variable(entry: dict[str, Any], indent: str) -> list[str]:
    line = f"{indent}{entry.get('name', entry.get('expression', ''))} = {entry.get('value')}"
    line += f"   ({entry.get('type')})" if entry.get("type") else ""
    rows = [line]
    for member in entry.get("members", []):
        rows += _variable(member, indent + "  ")
    return rows


def _variables(data: dict[str, Any]) -> list[str]:
    if "variable" in data:
        return _variable(data["variable"], "")
    rows = [row for entry in data.get("variables", []) for row in _variable(entry, "")]
    return rows or ["no variables"]


def _evaluate(data: dict[str, Any]) -> list[str]:
    return [f"{data.get('expression')} = {data.get('value')}   ({data.get('type')})"] + [
        f"  {m.get('name')} = {m.get('value')}" for m in data.get("members", [])
    ]


def _breakpoint_line(entry: dict[str, Any]) -> str:
    text = f"{entry.get('id')}: {entry.get('location')}"
    resolved = entry.get("resolved") or []
    if resolved:
        text += f" -> {', '.join(resolved)}"
    for key in ("condition", "hit_count", "log_message"):
        if key in entry:
            text += f" [{key.replace('_', ' ')} {entry[key]}]"
    text += f" hits {entry.get('hits', 0)}"
    if entry.get("enabled") is False:
        text += " (disabled)"
    if entry.get("pending"):
        text += " (pending)"
    return text


def _breakpoints(data: dict[str, Any]) -> list[str]:
    if "breakpoints" in data:
        return [_breakpoint_line(b) for b in data["breakpoints"]] or ["no breakpoints"]
    if "breakpoint" in data:
        return ["breakpoint " + _breakpoint_line(data["breakpoint"])]
    return [f"breakpoint {data.get('removed')} removed"]


def _watch(data: dict[str, Any]) -> list[str]:
    def line(w: dict[str, Any]) -> str:
        return f"{w.get('id')}: {w.get('expression')} ({w.get('access')}) = {w.get('value')}"
    if "watchpoints" in data:
        return [line(w) for w in data["watchpoints"]] or ["no watchpoints"]
    if "watchpoint" in data:
        return ["watchpoint " + line(data["watchpoint"])]
    return [f"watchpoint {data.get('removed')} removed"]


def _sessions(data: dict[str, Any]) -> list[str]:
    rows = []
    for s in data.get("sessions", []):
        extra = s.get("exit") or s.get("stop") or ""
        rows.append(f"{s['id']}: {s['state']}{' ' + extra if extra else ''}  pid {s['pid']}  {s['program']}")
    return rows or ["no sessions"]


def _output(data: dict[str, Any]) -> list[str]:
    return [str(data.get("text", "")).rstrip("\n")]


def _lines_of(key: str) -> Formatter:
    return lambda data: [str(row) for row in data.get(key, [])]


def _registers(data: dict[str, Any]) -> list[str]:
    return _table(data.get("registers", {}), "")


def _trace(data: dict[str, Any]) -> list[str]:
    lines = [str(data.get("summary", ""))]
    for key in ("traced", "untraced", "unmatched", "failed"):
        if data.get(key):
            lines.append(f"{key}: {', '.join(str(v) for v in data[key])}")
    for function in data.get("functions", []):
        extra = f" sampled {function['sampled']}" if "sampled" in function else ""
        lines.append(f"  {function['name']} ({function.get('at', '?')}): {function['calls']} calls{extra}")
    if data.get("sampling"):
        lines.append(str(data["sampling"]))
    return lines


def _event_line(event: dict[str, Any]) -> str:
    head = f"{event.get('ms', 0):>10.3f} ms"
    if "thread" in event:
        head += f" [{event['thread']}]"
    kind = event.get("kind")
    pad = "  " * int(event.get("depth") or 0)
    if kind == "call":
        return f"{head} {pad}-> {event.get('function')}({event.get('args', '')})"
    if kind == "return":
        value = event.get("returned")
        shown = "void" if value is None else value
        return f"{head} {pad}<- {event.get('function')} = {shown} ({event.get('duration_ms')} ms)"
    return f"{head} {kind}: {str(event.get('text', '')).rstrip()}"


def _query(data: dict[str, Any]) -> list[str]:
    lines = [_event_line(e) for e in data.get("events", [])]
    shown = f"{data.get('offset', 0)}..{data.get('offset', 0) + len(lines)}"
    lines.append(f"{data.get('total', 0)} events ({shown} shown)")
    if "next_offset" in data:
        lines.append(f"more: --offset {data['next_offset']}")
    if data.get("sampling"):
        lines.append(f"sampled: {data['sampling']}")
    return lines


def _stop(data: dict[str, Any]) -> list[str]:
    line = f"{data.get('session')}: ended, {data.get('exit') or data.get('program')}"
    return [line] + (["last output:", *_indented(str(data["last_output"]), "| ")] if data.get("last_output") else [])


def _set(data: dict[str, Any]) -> list[str]:
    return [f"{data.get('target')} = {data.get('now')}   (was {data.get('was')}; {data.get('type')})"]


def _catch(data: dict[str, Any]) -> list[str]:
    what = data.get("signal") or data.get("catch")
    return [f"catch {what}: {'on' if data.get('enabled') else 'off'}"]


_FORMATTERS: dict[str, Formatter] = {
    "debug_stack": _stack,
    "debug_variables": _variables,
    "debug_evaluate": _evaluate,
    "debug_breakpoint": _breakpoints,
    "debug_watch": _watch,
    "debug_sessions": _sessions,
    "debug_output": _output,
    "debug_disassemble": _lines_of("instructions"),
    "debug_memory": lambda d: _lines_of("hex")(d) or [f"{d.get('written')} bytes written at {d.get('address')}"],
    "debug_registers": _registers,
    "debug_gcore": lambda d: [f"warning: {w}" for w in d.get("warnings", [])] + [f"Saved corefile {d.get('path')}"],
    "debug_trace": _trace,
    "debug_query": _query,
    "debug_stop": _stop,
    "debug_disconnect": _stop,
    "debug_set": _set,
    "debug_catch": _catch,
    "debug_console": lambda d: [str(d.get("output", ""))],  # what the console answered itself (x): gdb's text
}


# The tools' call for a page of a value's children, said as the command that makes it.
_PAGE_CALL = re.compile(r"debug_variables path=(\S+)((?: (?:start|count)=\d+)*)")


def _command_for(how: str) -> str:
    found = _PAGE_CALL.fullmatch(how)
    if found is None:
        return how
    options = "".join(f" --{word.replace('=', ' ')}" for word in found.group(2).split())
    return f"expand {shlex.quote(found.group(1))}{options}"


def _omitted(data: dict[str, Any]) -> list[str]:
    rows = []
    for entry in data.get("omitted", []):
        how = f" ({_command_for(str(entry['how']))})" if entry.get("how") else ""
        rows.append(f"omitted: {entry.get('what')}{how}")
    return rows


def format_reply(tool: str, data: dict[str, Any], is_error: bool) -> str:
    """The text a command prints for `tool`'s reply."""
    if is_error:
        text = f"error {data.get('error')}: {data.get('message')}"
        return text + (f"\nhint: {data['hint']}" if data.get("hint") else "")
    if tool == "debug_console":
        tool = str(data.get("tool"))
        data = {k: v for k, v in data.items() if k not in ("command", "tool")}
    if tool in CONTEXT_TOOLS:
        lines = context_lines(data)
    elif tool in _FORMATTERS:
        lines = _FORMATTERS[tool](data)
    else:
        return render(data)
    return "\n".join(lines + _omitted(data))
