"""Console commands that show values: print, call, output, whatis, ptype, x."""

from __future__ import annotations

from typing import overload

from aliceserver.adapters.gdbcommands.examine import examine
from aliceserver.adapters.gdbcommands.print_format import KNOWN, PrintFormat, decode_print_format
from aliceserver.adapters.gdbcommands.selection import LineBuffer, Selection
from aliceserver.adapters.mi.frames import (
    evaluation_failure,
    printer_errors,
    whole_value_failure,
)
from aliceserver.adapters.mi.print_options import print_options_applied, split_print_options
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.adapters.mi.settings_policy import ascii_target, nibbles_separator
from aliceserver.debuggers.model import DynamicTypes, VariableInfo
from aliceserver.errors import AliceError

_NOT_INTEGER = "Value can't be converted to integer."  # /a or /c of a function


def _format(ctx: Context, text: str, command: str) -> PrintFormat:
    """print's and call's /FMT, the last format kept for the next one without a letter."""
    memory = ctx.session.command_memory
    fmt = decode_print_format(text, command, memory.print_format)
    if text.startswith("/"):
        memory.print_format = fmt.letter
    return fmt


def _print(ctx: Context, text: str) -> Reply:
    options, text = split_print_options(text)
    fmt = _format(ctx, text, "print")
    with print_options_applied(ctx, options):
        value = _printed(ctx, fmt, record=True, numbered=True)  # the engine's value history, shared by front ends
    ctx.console(f"{value}\n")
    return None


def _call(ctx: Context, text: str) -> Reply:
    """gdb's call: print's, except that a void result prints nothing and, unlike print's
    `$N = void`, does not enter the value history."""
    options, text = split_print_options(text)
    fmt = _format(ctx, text, "print")  # gdb's call is print_command_1: print's words
    with print_options_applied(ctx, options):
        value = _printed(ctx, fmt, void_shown=False, record=not _void_result(ctx, fmt.expression), numbered=True)
    if value is not None:
        ctx.console(f"{value}\n")
    return None


def _void_result(ctx: Context, expression: str) -> bool:
    """Whether the expression's type is void, found without running anything (whatis's way)."""
    if not expression.strip():
        return False
    try:
        return ctx.session.evaluate(expression, type_only=True).type == "void"
    except AliceError:
        return False  # the evaluation proper reports it


@overload
def _printed(ctx: Context, fmt: PrintFormat, *, record: bool = False, numbered: bool = False) -> str: ...


@overload
def _printed(
    ctx: Context, fmt: PrintFormat, void_shown: bool, *, record: bool = False, numbered: bool = False
) -> str | None: ...


def _printed(
    ctx: Context, fmt: PrintFormat, void_shown: bool = True, *, record: bool = False, numbered: bool = False
) -> str | None:
    """print's text of an expression in a format, or its error (output's too: a value too
    big or unreadable is an error there as well). None for a void value unless `void_shown`.
    `record`: the value goes into the value history (print, call; output records none);
    `numbered`: its `$N = ` written first, as gdb writes it before it prints the value (a
    printer's error lines, an error met while printing and what it printed come after)."""
    session = ctx.session
    text = fmt.expression
    # The engine's letter: a format, `r` after it for raw (/xr; /r alone: `r`). /s is
    # print's natural format in C (char arrays are strings already).
    letter = fmt.letter if fmt.letter in KNOWN and fmt.letter != "s" else None
    if fmt.raw:
        letter = (letter or "") + "r"
    if not text.strip():
        if not record:
            raise MiError("Argument required (expression to compute).")
        text = "$"  # gdb's print alone: the last value again
    info = session.evaluate(text, letter, shown=DynamicTypes.POINTERS | DynamicTypes.OBJECTS, record=record)
    recorded = f"${info.history}" if info.history else text  # `$` names another value now
    failure = whole_value_failure(session, recorded, info) or evaluation_failure(info)
    # met as gdb prints the value (/a of a function, a printer's child unreadable): after `$N = `
    printing = (failure == _NOT_INTEGER and fmt.letter in ("a", "c")) or info.partial is not None
    if failure is not None and not printing:
        raise MiError(failure)
    if not void_shown and info.type == "void":
        return None
    if numbered:
        ctx.console(f"${session.debugger.history_count()} = ", line_start=True)
    for line in printer_errors(info, printed=True):  # on gdb's error stream, as it prints the value
        ctx.log(line, aside=True)
    if failure is not None:  # met as gdb prints the value: after what it printed
        ctx.console(info.partial or "")
        raise MiError(failure)
    if fmt.letter and fmt.letter not in KNOWN:  # gdb fails as it prints the value
        raise MiError(f'Undefined output format "{fmt.letter}".')
    return laid_out(ctx, info)


def laid_out(ctx: Context, info: VariableInfo) -> str:
    """print's text of a value, over several lines with `set print pretty on` as gdb's."""
    return ctx.session.printed(info)


def _output(ctx: Context, text: str) -> Reply:
    ctx.console(_printed(ctx, decode_print_format(text, "output")))  # gdb's output records no history value
    return None


def _real_type(info: VariableInfo) -> str:
    """gdb's comment before the type of a pointer or reference to a polymorphic class
    with print object on (a class object itself has none: gdb's whatis reads no memory)."""
    return "" if info.declared_type is None else f"/* real type = {info.type} */\n"


def _type_flags(text: str) -> tuple[str, str]:
    """The expression and gdb's type-printing flags before it (`/rmMtToxd`), refused in
    gdb's words. Last wins between x and d; m, M, t, T change only C++ member functions
    and typedefs, which ptype here does not write out."""
    if not text.startswith("/"):
        return text, ""
    end = 1
    while end < len(text) and not text[end].isspace():
        if text[end] not in "rmMtToxd":
            raise MiError(f"unrecognized flag '{text[end]}'")
        end += 1
    if end == 1 and end == len(text):
        raise MiError("flag expected")
    if end == len(text):
        raise MiError("expected space after format")
    flags = text[1:end]
    hex_last = flags.rfind("x") > flags.rfind("d")
    return text[end:].lstrip(), flags.replace("x", "").replace("d", "") + ("x" if hex_last else "")


def _whatis(ctx: Context, text: str) -> Reply:
    text, flags = _type_flags(text)
    text = text.strip() or "$"  # gdb's: no expression is the last value in the history
    raw = "r" in flags
    session = ctx.session
    info = session.evaluate(text, shown=DynamicTypes.POINTERS, type_only=True)
    shown = info.declared_type or info.type
    inferior = session.inferior
    if not raw and info.declared_type is None and inferior.process is not None and not inferior.running \
            and inferior.selected_tid is not None:
        try:  # gdb's type printers: std::vector<int> for std::vector<int, std::allocator<int> >
            shown = session.debugger.printed_type_name(text, inferior.selected_tid,
                                                       inferior.selected_level) or shown
        except AliceError:
            pass  # evaluate succeeded: keep its type name
    ctx.console(f"type = {_real_type(info)}{shown}\n")
    return None


def _ptype(ctx: Context, text: str) -> Reply:
    """whatis, with typedefs at the top resolved and struct/union/enum bodies written out."""
    text, flags = _type_flags(text)
    text = text.strip() or "$"  # gdb's: no expression is the last value in the history
    session = ctx.session
    info = session.evaluate(text, shown=DynamicTypes.POINTERS, type_only=True)  # gdb's errors as well
    described = info.declared_type or info.type
    inferior = session.inferior
    offsets = "o" in flags
    stopped = inferior.process is not None and not inferior.running and inferior.selected_tid is not None
    if stopped or inferior.process is None:
        try:  # before `run`: the program's types, as gdb reads them from the file
            described = session.debugger.describe_type(
                text, inferior.selected_tid if stopped else None, inferior.selected_level if stopped else 0,
                raw="r" in flags, flags=flags)
        except AliceError:
            offsets = False  # evaluate succeeded: keep its type name
    if offsets:  # the whole line, gdb's offset header first where it has one
        ctx.console(described + "\n")
        return None
    ctx.console(f"type = {_real_type(info)}{described}\n")
    return None


def _x(ctx: Context, text: str) -> Reply:
    session = ctx.session
    inferior = session.inferior
    stopped = inferior.process is not None and not inferior.running and inferior.selected_tid is not None
    where = Selection(*session.selected_frame()) if stopped else Selection(None)
    if inferior.process is None:
        session.ensure_symbols()  # before `run`, x reads the program's image, as in gdb
    lines = LineBuffer(ctx.console)
    try:
        examine(session.debugger, where, session.command_memory.examine, text, lines, nibbles_separator(session),
                ascii_target(session.settings))
    finally:
        lines.flush()
    return None


def register_print(registry: CliRegistry) -> None:
    add = registry.add
    add("print", _print, "p", "inspect")
    add("call", _call)
    add("output", _output)
    add("ptype", _ptype)
    add("whatis", _whatis)
    add("x", _x)
