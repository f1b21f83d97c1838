"""Looking at a stopped program: stackTrace, scopes, variables, setVariable, evaluate,
setExpression, completions, source, modules, exceptionInfo.

evaluate runs calls into the program (`sq(3)`, `v.size()` without an xmethod) in every
context but `hover`: a hover happens whenever the mouse rests on an expression, and a call
there would run code the user never asked for. lldb-vscode-16 refuses it too (it only reads
variable paths on hover and answers `error: No value`); we say why.
"""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING, TypeVar

from aliceserver.adapters.dap import printed
from aliceserver.adapters.dap.events import STOP_REASONS, exception_id, stop_description
from aliceserver.adapters.dap.handles import FrameRef, ScopeRef, TextRef, ValueRef
from aliceserver.adapters.dap.messages import Arguments, InvalidArguments, JsonObject, WrongState
from aliceserver.adapters.dap.shapes import (
    child_expression,
    is_pointer,
    memory_reference,
    module_json,
    source_json,
)
from aliceserver.debuggers.model import SourcePosition, StackFrame, VariableInfo, VariableScope
from aliceserver.errors import AliceError, ProtocolError, TargetError

if TYPE_CHECKING:
    from aliceserver.adapters.dap.registry import Registry
    from aliceserver.adapters.dap.session import DapSession

_SCOPES = (
    ("Locals", VariableScope.LOCALS, "locals", False),
    ("Arguments", VariableScope.ARGUMENTS, "arguments", False),
    ("Globals", VariableScope.GLOBALS, None, True),
    ("Registers", VariableScope.REGISTERS, "registers", False),
)
_RETURN_VALUE = "(return value)"
# gdb's `info registers` order; the engine lists them as the kernel's struct does.
_REGISTER_ORDER = {
    name: index
    for index, name in enumerate(
        "rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip eflags "
        "cs ss ds es fs gs fs_base gs_base".split()
    )
}
_T = TypeVar("_T")


# --- frames ----------------------------------------------------------------------------------
def _frame_json(session: DapSession, ident: int, frame: StackFrame, runtime: bool = False) -> JsonObject:
    """A StackFrame; `runtime`: below the program's main (where gdb's bt ends), shown subtle."""
    state = session.state
    name = frame.function or frame.symbol.name or f"{frame.pc:#x}"
    body: JsonObject = {
        "id": ident,
        "name": name,
        "line": 0,
        "column": 0,
        "instructionPointerReference": memory_reference(frame.pc),
    }
    if frame.module:
        body["moduleId"] = frame.module
    source = None
    if frame.source is not None and frame.source.line:
        source = state.frame_sources.json(frame.source, session.debugger.source_paths)
        body["source"] = source
        body["line"] = state.line_out(frame.source.line)
        body["column"] = state.column_out(max(1, frame.source.column))
    if frame.signal_trampoline:
        body["name"] = "<signal handler called>"
        body["presentationHint"] = "label"
    elif source is None or runtime or frame.tail_call:  # a tail-call frame is inferred, as gdb's
        body["presentationHint"] = "subtle"
    return body


def stack_trace(session: DapSession, args: Arguments) -> JsonObject:
    thread = args.integer("threadId")
    start = max(0, args.opt_integer("startFrame", 0) or 0)
    levels = max(0, args.opt_integer("levels", 0) or 0)
    # One more than asked tells whether the stack goes on, without unwinding all of it.
    # Which frames are below main: from the frames above the page, listed from the top once
    # a stop (the engine keeps the unwinding), so that each later page costs its own frames.
    main, seen = session.handles.main_seen(thread)
    if main is None and seen < start:
        session.handles.saw_frames(thread, 0, session.debugger.stack_trace(thread, 0, start))
    frames = session.debugger.stack_trace(thread, start, levels + 1 if levels else None)
    session.handles.saw_frames(thread, start, frames)
    main = session.handles.main_seen(thread)[0]
    more = bool(levels) and len(frames) > levels
    frames = frames[:levels] if levels else frames
    ids = session.handles.frame_ids(thread, [f.level for f in frames])
    last = main if main is not None else 1 << 62  # below it: the runtime's frames, shown subtle
    listed = [_frame_json(session, i, f, f.level > last) for i, f in zip(ids, frames, strict=True)]
    body: JsonObject = {"stackFrames": listed}
    # A lower bound while more remain: the client asks again from where it got to.
    if frames or start == 0:
        body["totalFrames"] = start + len(frames) + (1 if more else 0)
    else:  # asked past the end (a stale "load more"): the stack's real depth
        body["totalFrames"] = len(session.debugger.stack_trace(thread))
    return body


def scopes(session: DapSession, args: Arguments) -> JsonObject:
    frame = session.handles.frame(args.integer("frameId"))
    result = []
    for name, scope, hint, expensive in _SCOPES:
        entry: JsonObject = {
            "name": name,
            "variablesReference": session.handles.variable_id(ScopeRef(frame, scope)),
            "expensive": expensive,
        }
        if hint:
            entry["presentationHint"] = hint
        result.append(entry)
    return {"scopes": result}


# --- variables -------------------------------------------------------------------------------
def variable_json(
    session: DapSession, info: VariableInfo, frame: FrameRef | None, expression: str | None
) -> JsonObject:
    body: JsonObject = {"name": info.name, "value": printed.shown_value(info), "type": info.type}
    reference = 0
    named, indexed = info.named_children, info.indexed_children
    if info.printer is not None:
        named, indexed = printed.child_counts(info.printer)
    if info.variant is not None:  # a Rust enum: the active variant's fields are its children
        variant = info.variant
        named, indexed = variant.named_children, variant.indexed_children
        if variant.reference:
            reference = session.handles.variable_id(
                ValueRef(frame, variant.reference, expression, is_pointer(info), named, indexed, variant=True)
            )
    elif info.reference:
        reference = session.handles.variable_id(
            ValueRef(frame, info.reference, expression, is_pointer(info), named, indexed, info.printer)
        )
    body["variablesReference"] = reference
    if named and reference:
        body["namedVariables"] = named
    if indexed and reference:
        body["indexedVariables"] = indexed
    if expression:
        body["evaluateName"] = expression
    if info.address is not None:
        body["memoryReference"] = memory_reference(info.address)
    if info.error:
        body["presentationHint"] = {"attributes": ["failedEvaluation"]}
    return body


def _hex(args: Arguments) -> bool:
    fmt = args.opt_object("format")
    return fmt.boolean("hex") if fmt is not None else False


def _scope_variables(
    session: DapSession, ref: ScopeRef, hex_format: bool
) -> list[tuple[VariableInfo, str | None]]:
    frame = ref.frame
    debugger = session.debugger
    # DAP shows no NAME@entry values: not looked for
    infos = debugger.frame_variables(frame.thread_id, frame.level, ref.scope, dynamic=session.state.dynamic,
                                     entry_values=False)  # fmt: skip
    if ref.scope is VariableScope.REGISTERS:
        infos = sorted(infos, key=lambda info: _REGISTER_ORDER.get(info.name, len(_REGISTER_ORDER)))
        return [(info, f"${info.name}") for info in infos]
    result: list[tuple[VariableInfo, str | None]] = []
    if ref.scope is VariableScope.LOCALS and frame.level == 0:
        returned = session.state.return_value.get(frame.thread_id)
        if returned is not None:
            result.append((VariableInfo(_RETURN_VALUE, returned.type, returned.value), None))
    named: set[str] = set()
    for info in infos:
        # A local hidden by an inner one of its name (listed after it, as gdb's info
        # locals): no expression names it, so it gets none.
        shadowed = ref.scope is VariableScope.LOCALS and info.name in named
        named.add(info.name)
        if shadowed:
            result.append((info, None))
            continue
        if hex_format and not info.error:
            try:
                info = debugger.evaluate(info.name, frame.thread_id, frame.level, "x",
                                         dynamic=session.state.dynamic)
            except AliceError:
                pass  # keep the value as it was
        result.append((info, info.name))
    return result


def variables(session: DapSession, args: Arguments) -> JsonObject:
    ref = session.handles.variable(args.integer("variablesReference"))
    wanted = args.opt_string("filter")
    start = max(0, args.opt_integer("start", 0) or 0)
    count = max(0, args.opt_integer("count", 0) or 0)
    hex_format = _hex(args)
    if isinstance(ref, TextRef):
        rows = [{"name": n, "value": v, "variablesReference": 0} for n, v in ref.lines]
        return {"variables": [] if wanted == "indexed" else _page(rows, start, count)}
    if isinstance(ref, ScopeRef):
        if wanted == "indexed":
            return {"variables": []}
        pairs = _page(_scope_variables(session, ref, hex_format), start, count)
        return {
            "variables": [variable_json(session, info, ref.frame, name) for info, name in pairs]
        }
    if ref.printer is not None:
        return {"variables": printed.children(session, ref, ref.printer, wanted, start, count)}
    # Children of a value: arrays have indexed children only, the rest named ones only.
    if (wanted == "indexed" and not ref.indexed) or (wanted == "named" and ref.indexed):
        return {"variables": []}
    engine_reference = ref.engine_reference
    if hex_format and ref.expression:
        frame = ref.frame
        again = session.debugger.evaluate(
            ref.expression, frame.thread_id if frame else None, frame.level if frame else 0, "x",
            dynamic=session.state.dynamic,
        )
        if ref.variant:
            again = again.variant or again
        engine_reference = again.reference or engine_reference
    children = session.debugger.variable_children(engine_reference, start, count or None)
    result = []
    for child in children:
        expression = _child_expression(ref, child.name)
        result.append(variable_json(session, child, ref.frame, expression))
    return {"variables": result}


def _child_expression(ref: ValueRef, name: str) -> str | None:
    """The expression naming child `name` of `ref`; a Rust tuple variant's field by its
    position (`some.0`: gdb's Rust refuses `some.__0` there)."""
    if not ref.expression:
        return None
    positional = ref.variant and re.fullmatch(r"__\d+", name) is not None
    expression = child_expression(ref.expression, ref.pointer, name)
    if positional and expression is not None and expression.endswith(name):
        return expression[: -len(name)] + name[2:]
    return expression


def _page(rows: list[_T], start: int, count: int) -> list[_T]:
    return rows[start : start + count] if count else rows[start:]


def _assign(
    session: DapSession, expression: str, value: str, frame: FrameRef | None
) -> VariableInfo:
    if session.debugger.process is None:
        raise WrongState("the program is not being run")
    tid = frame.thread_id if frame else None
    level = frame.level if frame else 0
    info = session.debugger.evaluate(f"{expression} = {value}", tid, level)
    _after_write(session, frame, info.address)
    return info


def _after_write(session: DapSession, frame: FrameRef | None, address: int | None) -> None:
    client = session.state.client
    if client.invalidated:
        body: JsonObject = {"areas": ["variables"]}
        if frame is not None:
            body["threadId"] = frame.thread_id
        session.after_response(lambda: session.send_event("invalidated", body))
    if client.memory_event and address is not None:
        memory = {"memoryReference": memory_reference(address), "offset": 0, "count": 8}
        session.after_response(lambda: session.send_event("memory", memory))


def set_variable(session: DapSession, args: Arguments) -> JsonObject:
    ref = session.handles.variable(args.integer("variablesReference"))
    name = args.string("name")
    value = args.string("value")
    frame: FrameRef | None
    if isinstance(ref, ScopeRef):
        frame = ref.frame
        if ref.scope is VariableScope.REGISTERS:
            if frame.level != 0:
                raise WrongState("setVariable: only the innermost frame's registers can be set")
            try:
                number = int(value, 0)
            except ValueError:
                number = int(session.debugger.evaluate(value, frame.thread_id, 0).value, 0)
            session.debugger.write_register(frame.thread_id, name, number)
            _after_write(session, frame, None)
            return {"value": f"{number % 2**64:#x}", "type": "long", "variablesReference": 0}
        if name == _RETURN_VALUE:
            raise WrongState("setVariable: the return value is gone; it cannot be set")
        expression: str | None = name
    elif isinstance(ref, ValueRef):
        frame = ref.frame
        expression = _child_expression(ref, name)
    else:
        raise WrongState("setVariable: these values are read-only")
    if expression is None:
        raise WrongState(
            f"setVariable: {name} cannot be named by an expression, so it cannot be set"
        )
    return _assigned(session, expression, value, frame)


_ASSIGNED_KEYS = ("value", "type", "variablesReference", "namedVariables", "indexedVariables",
                  "memoryReference")  # fmt: skip


def _assigned(session: DapSession, expression: str, value: str, frame: FrameRef | None) -> JsonObject:
    """Assign, then the reply setVariable and setExpression share: the new value's view."""
    info = _assign(session, expression, value, frame)
    body = variable_json(session, info, frame, expression)
    return {key: body[key] for key in _ASSIGNED_KEYS if key in body}


def _frame_of(session: DapSession, args: Arguments) -> FrameRef | None:
    return session.handles.frame(args.integer("frameId")) if args.has("frameId") else None


def set_expression(session: DapSession, args: Arguments) -> JsonObject:
    expression = args.string("expression")
    value = args.string("value")
    frame = _frame_of(session, args)
    return _assigned(session, expression, value, frame)


def evaluate(session: DapSession, args: Arguments) -> JsonObject:
    expression = args.string("expression")
    context = args.opt_string("context") or "repl"
    frame = _frame_of(session, args)
    if context == "repl":  # gdb's console (with MI's command language): imported at its first use
        from aliceserver.adapters.dap import repl

        return repl.run(session, expression, frame)
    if not expression.strip():
        raise InvalidArguments("evaluate: the expression is empty")
    if session.debugger.process is None:
        raise WrongState("evaluate: the program is not being run")
    try:
        info = session.debugger.evaluate(
            expression, frame.thread_id if frame else None, frame.level if frame else 0,
            "x" if _hex(args) else None, dynamic=session.state.dynamic, calls=context != "hover",
        )  # fmt: skip
    except ProtocolError as error:  # without calls, the engine answers as with no process
        if context == "hover" and str(error) == _NO_CALLS:
            raise ProtocolError("a hover does not call the program's functions (evaluate it in the debug console)") from None
        raise
    body = variable_json(session, info, frame, expression)
    result: JsonObject = {"result": body["value"], "type": body["type"]}
    for key in ("variablesReference", "namedVariables", "indexedVariables", "memoryReference"):
        if key in body:
            result[key] = body[key]
    return result


_NO_CALLS = "You can't do that without a process to debug."  # gdb's words for a call with no process
_WORD = re.compile(r"[A-Za-z_$][\w$]*$")


def completions(session: DapSession, args: Arguments) -> JsonObject:
    text = args.string("text")
    column = args.integer("column")
    cursor = max(0, min(len(text), column - (1 if session.state.client.columns_start_at1 else 0)))
    before = text[:cursor]
    match = _WORD.search(before)
    prefix = match.group(0) if match else ""
    names: dict[str, str] = {}
    frame = _frame_of(session, args)
    process = session.debugger.process
    if process is not None and not session.debugger.is_running():
        thread = frame.thread_id if frame else process.pid
        level = frame.level if frame else 0
        for scope in (VariableScope.LOCALS, VariableScope.ARGUMENTS, VariableScope.GLOBALS):
            try:
                for info in session.debugger.frame_variables(thread, level, scope):
                    names.setdefault(info.name, "variable")
            except AliceError:
                continue
    if not before[: len(before) - len(prefix)].strip():
        from aliceserver.adapters.dap import repl

        for word in repl.COMMANDS:
            names.setdefault(word, "keyword")
    targets = [
        {"label": name, "type": kind, "start": cursor - len(prefix), "length": len(prefix)}
        for name, kind in sorted(names.items())
        if name.startswith(prefix) and name != prefix
    ]
    return {"targets": targets}


_MAX_SOURCE = 16 << 20  # bytes of a source file sent whole in one response


def source(session: DapSession, args: Arguments) -> JsonObject:
    reference = args.opt_integer("sourceReference", 0) or 0
    given = args.opt_object("source")
    path = given.opt_path("path") if given is not None else None
    if reference and not path:
        raise ProtocolError(
            f"source: no source with reference {reference} (this adapter gives none out)"
        )
    if not path:
        raise InvalidArguments("source: 'source.path' or a 'sourceReference' is required")
    try:
        # Non-blocking: opening a FIFO would otherwise wait for a writer.
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb") as file:
            # Only regular files, and not huge ones: /dev/zero or a FIFO would never end.
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise TargetError(f"source: {path} is not a regular file")
            if info.st_size > _MAX_SOURCE:
                raise TargetError(f"source: {path} is larger than {_MAX_SOURCE >> 20} MiB")
            content = file.read(_MAX_SOURCE).decode("utf-8", errors="replace")
    except OSError as error:
        raise TargetError(f"source: cannot read {path}: {error.strerror}") from None
    extension = os.path.splitext(path)[1]
    mime = {".c": "text/x-c", ".h": "text/x-c", ".rs": "text/x-rust"}.get(extension, "text/x-c++")
    return {"content": content, "mimeType": mime}


def modules(session: DapSession, args: Arguments) -> JsonObject:
    found = session.debugger.modules()
    start = max(0, args.opt_integer("startModule", 0) or 0)
    count = max(0, args.opt_integer("moduleCount", 0) or 0)
    chosen = _page(found, start, count)
    return {"modules": [module_json(m) for m in chosen], "totalModules": len(found)}


def loaded_sources(session: DapSession, args: Arguments) -> JsonObject:
    """The loaded modules' source files that are on this machine (the others cannot be
    opened: a library's are paths of the machine it was built on)."""
    paths = session.debugger.source_paths
    shown = (source_json(SourcePosition(path, 0), paths) for path in session.debugger.source_files())
    return {"sources": [source for source in shown if source is not None]}


def exception_info(session: DapSession, args: Arguments) -> JsonObject:
    thread = args.integer("threadId")
    stop = session.state.last_stop.get(thread)
    if stop is None or STOP_REASONS.get(stop.reason) != "exception":
        raise WrongState(f"exceptionInfo: thread {thread} is not stopped on an exception or signal")
    details: JsonObject = {"message": stop_description(stop), "typeName": exception_id(stop)}
    description = stop_description(stop)
    if stop.fault is not None:
        extra = stop.fault.description
        if stop.fault.address is not None:
            extra += f" at {stop.fault.address:#x}"
        description = f"{description} ({extra})"
        details["message"] = description
    return {
        "exceptionId": exception_id(stop),
        "description": description,
        "breakMode": "always",
        "details": details,
    }


def register(registry: Registry) -> None:
    registry.add("stackTrace", stack_trace, show_user=False)
    registry.add("scopes", scopes, show_user=False)
    registry.add("variables", variables, show_user=False)
    registry.add("setVariable", set_variable)
    registry.add("setExpression", set_expression)
    registry.add("evaluate", evaluate, show_user=False)
    registry.add("completions", completions, show_user=False)
    registry.add("source", source, show_user=False)
    registry.add("modules", modules, show_user=False)
    registry.add("loadedSources", loaded_sources, show_user=False)
    registry.add("exceptionInfo", exception_info, show_user=False)
    # What stackTrace, variables and evaluate honour in their arguments.
    registry.declare("supportsDelayedStackTraceLoading", True)
    registry.declare("supportsValueFormattingOptions", True)
    registry.declare("supportsEvaluateForHovers", True)
    registry.declare("supportsClipboardContext", True)
