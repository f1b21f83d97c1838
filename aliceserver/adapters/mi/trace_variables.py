"""gdb's trace state variables (tracepoint.c): `tvariable $NAME [= EXPR]`, `info tvariables`,
`delete tvariable [$NAME...]`, `-trace-define-variable` and `-trace-list-variables`.

They are kept and listed as gdb keeps them; no target here runs a trace experiment, so
none has a current value (`<undefined>` in the console, no `current` field in MI)."""

from __future__ import annotations

import re

from aliceserver.adapters.mi.buildargv import build_argv
from aliceserver.adapters.mi.output import Results, Value
from aliceserver.adapters.mi.queries import query
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, MiRegistry, Reply

_HEADERS = (("name", "Name", 15), ("initial", "Initial", 11), ("current", "Current", 11))


def variables(ctx: Context) -> dict[str, int]:
    """The session's trace state variables by name (no `$`), in the order made."""
    return ctx.session.breakpoints.trace_variables


def _check_name(name: str) -> None:
    """gdb's validate_trace_state_variable_name (the name without its `$`)."""
    if not name:
        raise MiError("Must supply a non-empty variable name")
    if name.isdigit() or not re.fullmatch(r"[A-Za-z0-9_]+", name):
        raise MiError(f"${name} is not a valid trace state variable name")


def long_value(ctx: Context, text: str) -> int:
    """gdb's value_as_long (parse_and_eval EXPR): the expression's own errors, its value as
    an integer (a pointer's address, a character's code, a float truncated)."""
    info = ctx.session.evaluate(text)
    if info.error:
        raise MiError(info.value)
    shown = re.sub(r"^(\([^)]*\)|\{[^}]*\}) ", "", info.value)  # `(int *) `, a function's `{int (int)} `
    word = shown.split()[0] if shown.split() else ""
    try:
        if re.fullmatch(r"-?0[0-7]+", word):  # the output radix's octal
            return int(word, 8)
        if word in ("true", "false"):
            return int(word == "true")
        return int(word, 0) if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", word) else int(float(word))
    except ValueError:
        raise MiError("Value can't be converted to integer.") from None


def _define(ctx: Context, args: list[str]) -> Reply:
    """`-trace-define-variable $NAME [VALUE]`: made before VALUE is read, and no notice."""
    if len(args) not in (1, 2):
        raise MiError("Usage: -trace-define-variable VARIABLE [VALUE]")
    if not args[0].startswith("$"):
        raise MiError("Name of trace variable should start with '$'")
    name = args[0][1:]
    _check_name(name)
    table = variables(ctx)
    table.setdefault(name, 0)
    table[name] = long_value(ctx, args[1]) if len(args) == 2 else 0
    return None


def _tvariable(ctx: Context, text: str) -> Reply:
    """`tvariable $NAME [= EXPR]`: made, or its initial value changed (=tsv-created/modified)."""
    text = text.strip()
    if not text:
        raise MiError("Argument required (Syntax is $NAME [ = EXPR ]).")
    if not text.startswith("$"):
        raise MiError("Name of trace variable should start with '$'")
    match = re.match(r"\$([A-Za-z0-9_]*)\s*(.*)", text, re.S)
    assert match is not None
    name, rest = match.groups()
    if rest and not rest.startswith("="):
        raise MiError("Syntax must be $NAME [ = EXPR ]")
    _check_name(name)
    initial = long_value(ctx, rest[1:]) if rest else 0
    table = variables(ctx)
    if name in table:
        if table[name] != initial:
            table[name] = initial
            ctx.session.notify("tsv-modified", [("name", name), ("initial", str(initial))])
        ctx.console(f"Trace state variable ${name} now has initial value {initial}.\n")
        return None
    table[name] = initial
    ctx.session.notify("tsv-created", [("name", name), ("initial", str(initial))])
    ctx.console(f"Trace state variable ${name} created, with initial value {initial}.\n")
    return None


def delete_tvariables(ctx: Context, text: str) -> Reply:
    """`delete tvariable [$NAME...]`: all of them after a yes (=tsv-deleted bare)."""
    table = variables(ctx)
    if not text.strip():
        if query(ctx, "Delete all trace state variables? "):
            table.clear()
        ctx.session.notify("tsv-deleted")
        return None
    for word in build_argv(text):
        if not word.startswith("$"):
            ctx.log(f"warning: Name \"{word}\" not prefixed with '$', ignoring\n")
        elif word[1:] in table:
            ctx.session.notify("tsv-deleted", [("name", word[1:])])
            del table[word[1:]]
        else:
            ctx.log(f"warning: No trace variable named \"{word}\", not deleting\n")
    return None


def _table(ctx: Context) -> Results:
    hdr: list[Value] = [{"width": str(width), "alignment": "-1", "col_name": name, "colhdr": title}
                        for name, title, width in _HEADERS]  # fmt: skip
    body = Results([("variable", {"name": f"${name}", "initial": str(initial)})
                    for name, initial in variables(ctx).items()], as_list=True)  # fmt: skip
    return Results([("nr_rows", str(len(body.items))), ("nr_cols", "3"), ("hdr", hdr), ("body", body)])


def _list(ctx: Context, args: list[str]) -> Reply:
    if args:
        raise MiError("-trace-list-variables: no arguments allowed")
    return [("trace-variables", _table(ctx))]


def info_tvariables(ctx: Context, text: str) -> None:
    """gdb's table: each field padded to its width and a space (no value is known here)."""
    table = variables(ctx)
    if not table:
        ctx.console("No trace state variables.\n")
        return
    rows = [("Name", "Initial", "Current")]
    rows += [(f"${name}", str(initial), "<undefined>") for name, initial in table.items()]
    widths = [width for _, _, width in _HEADERS]
    ctx.console("".join("".join(f"{cell:<{width}} " for cell, width in zip(row, widths, strict=True)) + "\n"
                        for row in rows))  # fmt: skip


def register(registry: MiRegistry) -> None:
    registry.add("trace-define-variable", _define)
    registry.add("trace-list-variables", _list)


def register_console(registry: CliRegistry) -> None:
    registry.add("tvariable", _tvariable)
