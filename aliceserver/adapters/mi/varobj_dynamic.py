"""Dynamic var objects: values a pretty printer shows, as gdb 13's varobj.c makes them.

Such a var object has numchild 0 and `dynamic="1"`, its display hint, `has_more` while
children remain unlisted, a value of `{...}` when the printer has children (else its
to_string), and the printer's children, listed a range at a time; a child is found again
through its parent's printer (its index there), as no expression reaches it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.mi.output import Value
from aliceserver.debuggers.model import VariableInfo
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.varobj import Varobj, VarobjStore

# -var-update lists every child of a var object whose children were listed, as gdb does;
# for a container of millions this many are read at most.
UPDATE_LIMIT = 10_000


def value_text(info: VariableInfo) -> str:
    view = info.printer
    assert view is not None
    return "{...}" if view.has_children else (view.head or info.value)


def take(var: Varobj, info: VariableInfo) -> None:
    """Make `var` dynamic when a printer showed `info` (evaluated with printers only when
    they are on for it), or plain when none did."""
    view = info.printer
    if view is None:
        var.dynamic, var.hint, var.has_more = False, None, False
        return
    var.dynamic, var.hint, var.numchild = True, view.hint, 0
    var.value = value_text(info)
    var.has_more = bool(view.count) if view.count is not None else view.has_children


def _kids(store: VarobjStore, var: Varobj, start: int, count: int | None) -> list[VariableInfo] | None:
    info = store.evaluate(var, "natural")
    if info is None or not info.reference or info.printer is None:
        return None if info is None else []
    try:
        return store.session.debugger.variable_children(info.reference, start, count)
    except AliceError:
        return []


def _make_child(store: VarobjStore, var: Varobj, kid: VariableInfo, index: int) -> Varobj:
    from aliceserver.adapters.mi.varobj import _child_expression

    exp, path = kid.name, _child_expression(var, kid.name)[1]
    child = store._make(f"{var.name}.{exp}", exp, path, kid, var.floating, var.tid, var.frame_key)
    child.parent, child.dynamic_index, child.thread_number = var.name, index, var.thread_number
    store.vars[child.name] = child
    var.children.append(child.name)
    return child


def children(store: VarobjStore, var: Varobj, to: int | None) -> tuple[list[Varobj], bool]:
    """`var`'s children up to `to` (all when None), made as needed, and whether more
    follow (one more is read to know)."""
    have = [store.vars[name] for name in var.children if name in store.vars]
    more = to is not None and len(have) > to
    if to is None or len(have) <= to:
        start = len(have)
        kids = _kids(store, var, start, None if to is None else to + 1 - start) or []
        keep = kids if to is None else kids[: to - start]
        have += [_make_child(store, var, kid, start + i) for i, kid in enumerate(keep)]
        more = len(kids) > len(keep)
    var.has_more = more
    return (have if to is None else have[:to]), more


def child_info(store: VarobjStore, parent: Varobj, index: int, fmt: str) -> VariableInfo | None:
    kids = _kids(store, parent, index, 1)
    return kids[0] if kids else None


def update(store: VarobjStore, var: Varobj, info: VariableInfo) -> list[dict[str, Value]]:
    """gdb's changelist items for a dynamic var object (or one that just became one)."""
    if not var.dynamic or info.printer is None or not store.printing(var):
        # Printers turned on (or off) since it was made: remade. Raw children listed before
        # are replaced by the printer's; as gdb, those past their count are reported new.
        had = len(var.children)
        store.delete(var, only_children=True)
        take(var, info)
        entry: dict[str, Value] = {"name": var.name, "value": var.value, "in_scope": "true",
                                   "type_changed": "false"}
        if not var.dynamic:
            return [entry | {"has_more": "0"}]
        if had:
            made, more = children(store, var, (var.update_range or (0, UPDATE_LIMIT))[1])
            entry["new_num_children"] = str(len(made))
            var.has_more = more
            entry |= _dynamic_fields(var)
            entry["new_children"] = [child.name for child in made[had:]]
            return [entry]
        return [entry | _dynamic_fields(var)]
    changes: list[dict[str, Value]] = []
    shown = value_text(info)
    changed = shown != var.value or not var.in_scope or var.assigned
    var.value, var.in_scope, var.assigned = shown, True, False
    entry = {"name": var.name, "value": shown, "in_scope": "true", "type_changed": "false"}
    before = var.has_more
    new_children: list[str] = []
    if not var.children:
        count = info.printer.count
        var.has_more = bool(count) if count is not None else info.printer.has_children
    else:
        low, high = var.update_range or (0, UPDATE_LIMIT)
        kids = _kids(store, var, 0, high + 1) or []
        var.has_more = len(kids) > high
        kids = kids[:high]
        listed = [store.vars[name] for name in var.children if name in store.vars]
        for index, (child, kid) in enumerate(zip(listed, kids, strict=False)):
            if index >= low:
                changes += store.update(child, kid)
        for index in range(len(listed), len(kids)):
            new_children.append(_make_child(store, var, kids[index], index).name)
        for gone in listed[len(kids):]:
            store.delete(gone)
        if len(kids) != len(listed):
            entry["new_num_children"] = str(len(kids))
    if changed or new_children or "new_num_children" in entry or var.has_more != before:
        entry |= _dynamic_fields(var)
        if new_children:
            entry["new_children"] = new_children
        changes.insert(0, entry)
    return changes


def _dynamic_fields(var: Varobj) -> dict[str, Value]:
    out: dict[str, Value] = {"displayhint": var.hint} if var.hint else {}
    return out | {"dynamic": "1", "has_more": "1" if var.has_more else "0"}


def set_visualizer(store: VarobjStore, var: Varobj, visualizer: str) -> None:
    """-var-set-visualizer NAME None|gdb.default_visualizer: the var object is remade."""
    if visualizer == "None":
        var.visualizer = False
    elif visualizer == "gdb.default_visualizer":
        var.visualizer = True
    else:
        from aliceserver.adapters.mi.registry import MiError

        raise MiError(f"Could not evaluate visualizer expression: {visualizer}")
    store.delete(var, only_children=True)
    info = store.evaluate(var)
    if info is None:
        return
    var.numchild = _plain_numchild(info)
    var.value = store.shown(var, info)
    take(var, info if store.printing(var) else _without_printer(info))


def _plain_numchild(info: VariableInfo) -> int:
    from aliceserver.adapters.mi.varobj import _numchild

    return _numchild(info)


def _without_printer(info: VariableInfo) -> VariableInfo:
    from dataclasses import replace

    return replace(info, printer=None)
