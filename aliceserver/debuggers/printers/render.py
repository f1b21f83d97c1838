"""A printer's output as gdb prints it (py-prettyprint.c): to_string, then children by
display hint (`array`: `{1, 2}`, `map`: `{[k] = v}`, others `{name = value}`), within
`print elements` and `print max-depth`; an error in a printer shows in its value alone."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from aliceserver.debuggers.printers import context
from aliceserver.debuggers.printers.gdbvalue import LazyString, Value, from_python
from aliceserver.debuggers.printers.objfiles import PrinterSession
from aliceserver.debuggers.symbols.dwarf.format import FormatOptions, PrintAborted, format_value
from aliceserver.debuggers.symbols.dwarf.literals import string_literal, wide_prefix
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.types import strip
from aliceserver.debuggers.symbols.dwarf.values import MemoryError_, read
from aliceserver.debuggers.symbols.dwarf.values import Value as DwarfValue

log = logging.getLogger(__name__)

ChildText = Callable[[DwarfValue, int], str]


MAX_VALUE_SIZE = 65536  # gdb's max-value-size: a bigger child is not fetched whole


def find_printer(session: PrinterSession, value: Value) -> Any:
    """gdb's lookup: the objfiles' printers, the progspace's, then gdb's own list."""
    call = context.current_or_none()
    return _lookup(session, value) if call is None else call.run(lambda: _lookup(session, value))


def _lookup(session: PrinterSession, value: Value) -> Any:
    for printers in session.printer_lists():
        for function in list(printers):
            if not getattr(function, "enabled", True):
                continue
            printer = function(value)
            if printer is not None:
                return printer
    return None


def error_text(exc: BaseException) -> str:
    from aliceserver.debuggers.printers import gdb

    if isinstance(exc, gdb.MemoryError):
        return f"<error reading variable: {exc}>" if str(exc) else "<error reading variable>"
    log.debug("pretty printer failed", exc_info=exc)
    return f"<error: {exc}>" if str(exc) else f"<error: {type(exc).__name__}>"


def reported(exc: BaseException) -> str:
    """gdb's print_stack_unless_memory_error: a memory error's text goes into the value; any
    other error prints a `Python Exception` line on gdb's error stream, nothing in the value.
    Our own time budget's cut stays in the value (gdb has none)."""
    from aliceserver.debuggers.printers import gdb

    if isinstance(exc, (gdb.MemoryError, context.BudgetExceeded)):
        return error_text(exc)
    log.debug("pretty printer failed", exc_info=exc)
    context.current().python_exception(exc)
    return ""


def render(value: DwarfValue, depth: int, opts: FormatOptions, child: ChildText) -> str | None:
    """The value's text from its printer, or None when no printer takes it."""
    call = context.current()
    wrapped = Value(value)
    try:
        printer = find_printer(call.session, wrapped)
    except Exception as exc:  # a lookup (or a printer's constructor) that raises: gdb prints
        log.debug("printer lookup failed for %s", value.type, exc_info=exc)  # the value raw
        if not isinstance(exc, context.BudgetExceeded):
            call.python_exception(exc)
            call.refused = call.refused or depth == 0
        return None
    if printer is None:
        return None
    call.printed_top = call.printed_top or depth == 0
    hint = _hint(printer)  # (its text even past max-depth: its children are `{...}` there)
    try:
        head = _string_repr(printer, hint, depth, opts, child)
    except PrintAborted:
        raise
    except Exception as exc:  # gdb's string_repr_error: no children either
        return reported(exc)
    try:
        return head + _children(printer, hint, depth, opts, child, printed_nothing=head == "")
    except PrintAborted as exc:
        raise exc.after(head) from None


def _hint(printer: Any) -> str | None:
    if not hasattr(printer, "display_hint"):
        return None
    try:
        hint = context.current().run(printer.display_hint)
    except Exception:
        return None
    return hint if isinstance(hint, str) else None


def _string_repr(printer: Any, hint: str | None, depth: int, opts: FormatOptions, child: ChildText) -> str:
    if not hasattr(printer, "to_string"):
        return ""
    result = context.current().run(printer.to_string)
    if result is None:
        return ""
    if isinstance(result, LazyString):
        return lazy_string_text(result, opts)
    if isinstance(result, str):
        if hint == "string":
            data = result.encode("utf-8", "surrogateescape")
            shown = data[: opts.max_elements]
            return string_literal(shown, opts.repeat_threshold) + ("..." if len(data) > len(shown) else "")
        return result
    return child(from_python(result), depth)  # a gdb.Value (or a number): printed as gdb would


def _children(
    printer: Any, hint: str | None, depth: int, opts: FormatOptions, child: ChildText,
    *, printed_nothing: bool,
) -> str:
    if not hasattr(printer, "children"):
        return ""
    is_map, is_array = hint == "map", hint == "array"
    parts: list[str] = []
    call = context.current()
    try:
        items = call.run(lambda: iter(printer.children()))
    except Exception as exc:
        return reported(exc)
    done = False
    i = 0
    while i < opts.max_elements:
        try:
            call.check_time()
            item = call.run(lambda: next(items))
        except StopIteration:
            done = True
            break
        except Exception as exc:  # gdb ends the children there (`...}` after some; before the
            parts.append(reported(exc))  # first, its error follows the value's own text)
            break
        if i == 0:
            parts.append("" if printed_nothing else " = ")
        elif not is_map or i % 2 == 0:
            parts.append(", ")
        if depth + 1 > opts.max_depth:  # gdb's val_print_check_max_depth (recurse + 1)
            return "".join(parts) + "{...}"
        if i == 0:
            parts.append("{")
        if opts.summary:
            i += 1
            break
        try:
            parts.append(_child_text(item, i, is_map, is_array, depth, opts, child))
        except PrintAborted as exc:  # a child unreadable: the print ends there (gdb fetches
            raise exc.after("".join(parts)) from None  # each before printing it)
        i += 1
    if i:
        if not done:
            parts.append("...")
        parts.append("}")
    return "".join(parts)


def _child_text(
    item: Any, i: int, is_map: bool, is_array: bool, depth: int, opts: FormatOptions, child: ChildText
) -> str:
    if not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[0], str):
        return "<error: Result of children iterator not a tuple of two strings.>"
    name, obj = item
    out = ""
    if is_map and i % 2 == 0:
        out = "["
    elif not is_map and not is_array:
        out = f"{name} = "
    try:
        if isinstance(obj, LazyString):
            out += lazy_string_text(obj, opts)
        elif isinstance(obj, str):
            out += obj
        else:
            value = from_python(obj)
            _fetch(value)
            out += child(value, depth + 1)
    except PrintAborted as exc:
        raise exc.after(out) from None
    except Exception as exc:
        out += error_text(exc)
    if is_map and i % 2 == 0:
        out += "] = "
    return out


def _fetch(value: DwarfValue) -> None:
    """gdb's value_fetch_lazy before a child prints: its memory unreadable, the print ends."""
    if value.address is None or value.byte_size > MAX_VALUE_SIZE:
        return
    try:
        value.data()
    except MemoryError_ as exc:
        raise PrintAborted(str(exc)) from None
    except EvaluationError:
        pass  # optimized out: the child shows it


def lazy_string_text(lazy: LazyString, opts: FormatOptions) -> str:
    """gdb's val_print_string: the characters at the address, quoted, within `print
    elements` (to the NUL when the length is -1)."""
    element = strip(lazy.element)
    size = max(element.size, 1)
    limit = opts.max_elements
    call = context.current()
    if call.target is None:
        return "<error: no program>"
    frame = call.target.frame
    wanted = limit if lazy.length < 0 else min(lazy.length, limit)
    data = b""
    error: str | None = None
    try:
        data = read(frame, lazy.address, wanted * size) if wanted else b""
    except EvaluationError:
        data, error = _read_partial(frame, lazy.address, wanted * size)
    codes = [int.from_bytes(data[i : i + size], "little") for i in range(0, len(data) - size + 1, size)]
    more = lazy.length > limit
    if lazy.length < 0:
        if 0 in codes:
            codes = codes[: codes.index(0)]
        elif error is None:
            more = True  # no NUL within the limit
    elif codes and codes[-1] == 0 and not more and error is None:
        codes.pop()  # gdb's printstr: one NUL at the end is the terminator, not shown
    prefix = wide_prefix(lazy.element) or ""
    if size == 1:
        text = string_literal(bytes(codes), opts.repeat_threshold) if codes or error is None else ""
    else:
        text = f'{prefix}"' + "".join(chr(c) if 32 <= c < 0x110000 and c != 34 else f"\\{c:o}" for c in codes) + '"'
    if error is not None:
        return (text + " " if text else "") + f"<error: {error}>"
    return text + ("..." if more else "")


def _read_partial(frame: Any, address: int, size: int) -> tuple[bytes, str]:
    out = bytearray()
    while len(out) < size:
        try:
            out += read(frame, address + len(out), 1)
        except EvaluationError:
            break
    return bytes(out), f"Cannot access memory at address {address + len(out):#x}"


def format_string(value: Value, options: dict[str, Any]) -> str:
    """gdb.Value.format_string (and str()): the value as `print` shows it."""
    call = context.current_or_none()
    raw = bool(options.get("raw", False))
    fmt = options.get("format")
    max_elements = options.get("max_elements")
    opts = FormatOptions(
        fmt=fmt if isinstance(fmt, str) and fmt else None,
        max_elements=int(max_elements) if isinstance(max_elements, int) and max_elements > 0 else 200,
        pretty=None if raw or call is None else render,
    )
    return format_value(value.dwarf, opts)


def deadline(seconds: float) -> float:
    return time.monotonic() + seconds
