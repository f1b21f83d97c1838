"""Variable object commands (-var-*)."""

from __future__ import annotations

import re

from aliceserver.adapters.mi import varobj_dynamic as dynamic
from aliceserver.adapters.mi.commands_stack import print_values
from aliceserver.adapters.mi.output import Value
from aliceserver.adapters.mi.parser import getopt
from aliceserver.adapters.mi.registry import Context, MiError, MiRegistry, Reply
from aliceserver.adapters.mi.varobj import FORMATS, Varobj
from aliceserver.errors import AliceError


def _thread(var: Varobj) -> list[tuple[str, Value]]:
    return [("thread-id", str(var.thread_number))] if var.thread_number is not None and not var.floating else []


def _var_create(ctx: Context, args: list[str]) -> Reply:
    if len(args) < 3:
        raise MiError("-var-create: Usage: NAME FRAME EXPRESSION.")
    store = ctx.session.varobjs
    var = store.create(args[0], args[1], " ".join(args[2:]), thread=ctx.thread, frame=ctx.frame, log=ctx.log)
    pairs: list[tuple[str, Value]] = [("name", var.name), ("numchild", str(var.numchild)),
                                      ("value", var.value), ("type", var.type)]
    return pairs + _thread(var) + _dynamic(var) + [("has_more", "1" if var.has_more else "0")]


def _dynamic(var: Varobj) -> list[tuple[str, Value]]:
    """gdb's fields of a var object a pretty printer shows."""
    fields: list[tuple[str, Value]] = []
    if var.dynamic:
        fields += [("displayhint", var.hint)] if var.hint else []
        fields.append(("dynamic", "1"))
    return fields


def _var_delete(ctx: Context, args: list[str]) -> Reply:
    options = getopt("var-delete", args, flags="c")
    if len(options.rest) != 1:
        raise MiError("-var-delete: Usage: [-c] EXPRESSION.")
    store = ctx.session.varobjs
    count = store.delete(store.get(options.rest[0]), only_children=options.has("c"))
    return [("ndeleted", str(count))]


def _child_entry(ctx: Context, child: Varobj, mode: int) -> Value:
    entry: list[tuple[str, Value]] = [("name", child.name), ("exp", child.exp),
                                      ("numchild", str(child.numchild))]
    if mode == 1 or (mode == 2 and (child.dynamic or not child.aggregate)):  # gdb: a printer's, simple
        entry.append(("value", ctx.session.varobjs.value_of(child)))
    if child.group is None:  # gdb's C++ access groups have no type
        entry.append(("type", child.type))
    entry += _thread(child) + _dynamic(child)
    return dict(entry)


def _var_list_children(ctx: Context, args: list[str]) -> Reply:
    mode = 0
    rest = list(args)
    if rest and rest[0] in ("0", "1", "2", "--no-values", "--all-values", "--simple-values"):
        mode = print_values(rest.pop(0))
    if not rest:
        raise MiError("-var-list-children: Usage: [PRINT_VALUES] NAME [FROM TO]")
    store = ctx.session.varobjs
    var = store.get(rest[0])
    window = _window(rest[1:]) if len(rest) == 3 else None
    if var.dynamic:  # a printer's children: read only up to the window's end
        children, more = dynamic.children(store, var, window[1] if window else None)
        children = children[window[0]:] if window else children
    elif window is not None:
        children, total = store.window(var, *window)
        more = window[1] < total  # gdb: children past the window remain
    else:  # gdb: has_more also after -var-set-visualizer None, the printer's child read past
        children, more = store.children(var), var.has_more
    from aliceserver.adapters.mi.output import Results

    items = [("child", _child_entry(ctx, child, mode)) for child in children]
    pairs: list[tuple[str, Value]] = [("numchild", str(len(children)))]
    if var.dynamic and var.hint:
        pairs.append(("displayhint", var.hint))
    if items:
        pairs.append(("children", Results(items, as_list=True)))
    return pairs + [("has_more", "1" if more else "0")]


def _window(bounds: list[str]) -> tuple[int, int]:
    try:
        low, high = int(bounds[0]), int(bounds[1])
    except ValueError:
        raise MiError("Invalid range: FROM and TO are numbers") from None
    return max(0, low), max(0, high)


def _var_update(ctx: Context, args: list[str]) -> Reply:
    mode = 0
    rest = list(args)
    if rest and rest[0] in ("0", "1", "2", "--no-values", "--all-values", "--simple-values"):
        mode = print_values(rest.pop(0))
    if len(rest) != 1:
        raise MiError("-var-update: Usage: [PRINT_VALUES] VARIABLE_OBJECT.")
    store = ctx.session.varobjs
    every = rest[0] in ("*", "@")  # gdb: not explicit, so frozen ones are passed by
    targets = store.roots() if every else [store.get(rest[0])]
    changes: list[Value] = []
    for var in targets:
        for change in store.update(var, explicit=not every):
            entry = dict(change)
            shown = store.vars.get(str(entry["name"]))
            simple = shown is not None and (shown.dynamic or not shown.aggregate)  # gdb's simple values
            if "value" in entry and (mode == 0 or (mode == 2 and not simple)):
                del entry["value"]
            if "new_children" in entry:  # names of the var objects just made
                made = [store.vars[str(name)] for name in entry["new_children"]]  # type: ignore[union-attr]
                entry["new_children"] = [_child_entry(ctx, child, mode) for child in made]
            changes.append(entry)
    return [("changelist", changes)]


# gdb's parse_exp_1 errors, which -var-assign passes on; an error in evaluating or storing
# the value is its own "Could not assign" (varobj_set_value's false)
_PARSE_ERRORS = ("No symbol ", "A syntax error in expression", "No struct type named", "No union type named",
                 "No enum type named", "Invalid number", "Invalid character", "Unmatched", "Unterminated")  # fmt: skip


def _var_assign(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 2:
        raise MiError("-var-assign: Usage: NAME EXPRESSION.")
    session = ctx.session
    store = session.varobjs
    var = store.get(args[0])
    # (gdb's varobj_editable_p: nor one whose value could not be read)
    if var.aggregate or var.group is not None or not var.value:
        raise MiError("-var-assign: Variable object is not editable")
    where = store._frame_level(var)
    tid, level = where if where is not None else (None, 0)
    try:
        session.evaluate(f"{var.path} = {args[1]}", tid=tid, level=level)
    except AliceError as error:
        if str(error).startswith(_PARSE_ERRORS):
            raise MiError(str(error)) from None
        if str(error) == "Left operand of assignment is not an lvalue.":  # (gdb: no lval, not editable)
            raise MiError("-var-assign: Variable object is not editable") from None
        raise MiError("-var-assign: Could not assign expression to variable object") from None
    var.stale = False
    before, var.value = var.value, store.value_of(var)
    var.assigned = var.value != before  # gdb lists it in the next -var-update's changelist if changed
    return [("value", var.value)]


def _var_evaluate_expression(ctx: Context, args: list[str]) -> Reply:
    options = getopt("var-evaluate-expression", args, valued="f")
    if len(options.rest) != 1:
        raise MiError("-var-evaluate-expression: Usage: [-f FORMAT] NAME")
    store = ctx.session.varobjs
    var = store.get(options.rest[0])
    fmt = options.get("f")
    if fmt is not None and fmt not in FORMATS:
        raise MiError("Unknown display format: must be: \"natural\", \"binary\", \"decimal\", \"hexadecimal\", \"octal\" or \"zero-hexadecimal\"")
    return [("value", store.value_of(var, fmt))]


def _var_set_format(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 2:
        raise MiError("-var-set-format: Usage: NAME FORMAT.")
    store = ctx.session.varobjs
    var = store.get(args[0])
    matches = [name for name in FORMATS if name.startswith(args[1])]
    if args[1] in FORMATS:
        matches = [args[1]]
    if len(matches) != 1:
        raise MiError("Unknown display format: must be: \"natural\", \"binary\", \"decimal\", \"hexadecimal\", \"octal\" or \"zero-hexadecimal\"")
    var.format = matches[0]
    var.stale = False  # (gdb formats the value it kept; ours is read anew)
    var.value = store.value_of(var)
    return [("format", var.format), ("value", var.value)]


def _var_show_format(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("-var-show-format: Usage: NAME.")
    return [("format", ctx.session.varobjs.get(args[0]).format)]


def _var_info_type(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("-var-info-type: Usage: NAME.")
    return [("type", ctx.session.varobjs.get(args[0]).type)]


def _var_info_num_children(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("-var-info-num-children: Usage: NAME.")
    var = ctx.session.varobjs.get(args[0])
    # A dynamic var object: the children listed so far, as gdb counts them.
    return [("numchild", str(len(var.children) if var.dynamic else var.numchild))]


def _var_info_expression(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("-var-info-expression: Usage: NAME.")
    store = ctx.session.varobjs
    var = store.get(args[0])
    return [("lang", store.language(var)), ("exp", var.exp)]


def _var_info_path_expression(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("-var-info-path-expression: Usage: NAME.")
    var = ctx.session.varobjs.get(args[0])
    if var.anonymous_index is not None and var.exp.startswith("<anonymous "):
        return [("path_expr", "")]  # gdb: no expression names an unnamed member
    return [("path_expr", var.path)]


def _var_show_attributes(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("-var-show-attributes: Usage: NAME.")
    var = ctx.session.varobjs.get(args[0])
    return [("attr", "noneditable" if var.aggregate or var.group is not None else "editable")]


def _var_set_visualizer(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 2:
        raise MiError("Usage: NAME VISUALIZER_FUNCTION.")
    store = ctx.session.varobjs
    dynamic.set_visualizer(store, store.get(args[0]), args[1])
    return None


def _var_set_update_range(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 3:
        raise MiError("-var-set-update-range: Usage: VAROBJ FROM TO")
    low, high = (_atoi(text) for text in args[1:])  # gdb reads them with atoi
    ctx.session.varobjs.get(args[0]).update_range = (low if low >= 0 else None, high if high >= 0 else None)
    return None


def _atoi(text: str) -> int:
    """C's atoi: the leading integer, 0 when there is none."""
    found = re.match(r"\s*([+-]?\d+)", text)
    return int(found.group(1)) if found else 0


def _enable_pretty_printing(ctx: Context, args: list[str]) -> Reply:
    ctx.session.varobjs.pretty = True
    return None


def _var_set_frozen(ctx: Context, args: list[str]) -> Reply:
    """gdb neither reads nor reports a value here: the next -var-update does."""
    if len(args) != 2:
        raise MiError("-var-set-format: Usage: NAME FROZEN_FLAG.")  # (gdb's words)
    var = ctx.session.varobjs.get(args[0])
    if args[1] not in ("0", "1"):
        raise MiError("Invalid flag value")
    var.frozen = args[1] == "1"
    return None


def register(registry: MiRegistry) -> None:
    for name, handler in {
        "var-create": _var_create, "var-delete": _var_delete, "var-list-children": _var_list_children,
        "var-update": _var_update, "var-assign": _var_assign,
        "var-evaluate-expression": _var_evaluate_expression, "var-set-format": _var_set_format,
        "var-show-format": _var_show_format, "var-info-type": _var_info_type,
        "var-info-num-children": _var_info_num_children, "var-info-expression": _var_info_expression,
        "var-info-path-expression": _var_info_path_expression,
        "var-show-attributes": _var_show_attributes, "var-set-frozen": _var_set_frozen,
        "var-set-update-range": _var_set_update_range, "var-set-visualizer": _var_set_visualizer,
        "enable-pretty-printing": _enable_pretty_printing,
    }.items():  # fmt: skip
        registry.add(name, handler)
