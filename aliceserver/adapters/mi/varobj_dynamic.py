"""Dynamic var objects: values a pretty printer shows, as gdb 13's varobj.c makes them.

Such a var object has numchild 0 and `dynamic="1"`, its display hint, `has_more` while
children remain unlisted, a value of `{...}` when the printer has children (else its
to_string), and the printer's children, listed a range at a time; a child is found again
through its parent's printer (its index there), as no expression reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass
class _Pass:
    """What one pass over a printer's children found (gdb's update_dynamic_varobj_children)."""

    kept: list[tuple[Varobj, VariableInfo]] = field(default_factory=list)  # listed ones, anew
    made: list[Varobj] = field(default_factory=list)  # children new in this pass
    changed: bool = False  # the list of children changed (grew, shrank, or is short of TO)


def _pass(store: VarobjStore, var: Varobj, start_over: bool, low: int | None, high: int | None,
          cap: int | None = None) -> _Pass | None:  # fmt: skip
    """Read `var`'s children up to `high` (all when None), as gdb does: starting again from
    the first when `start_over` or when the last pass read them all, else going on after
    the listed ones; one more is read (kept as `has_more`) to know whether more follow;
    children past where it stopped are deleted. Only those from `low` on are reported.
    Without `high`, at most `cap` are read (then as if more followed). None when `var`
    cannot be evaluated."""
    listed = [store.vars[name] for name in var.children if name in store.vars]
    start = 0 if start_over or not var.has_more else len(listed)
    found = _Pass()
    if high is not None and start > high:
        return found  # nothing to read: gdb's loop does not start
    kids = _kids(store, var, start, cap if high is None else high + 1 - start)
    if kids is None:
        return None
    end, var.has_more = start, high is None and cap is not None and len(kids) >= cap
    for index, kid in enumerate(kids, start):
        if high is not None and index >= high:
            var.has_more = True  # gdb's saved item: the next listing starts with it
            break
        shown = low is None or index >= low
        if index < len(listed):
            if shown:
                found.kept.append((listed[index], kid))
            else:  # gdb installs the value without reporting it
                listed[index].value = store.shown(listed[index], kid)
        else:
            child = _make_child(store, var, kid, index)
            if shown:
                found.made.append(child)
                found.changed = True
        end = index + 1
    for gone in listed[end:]:
        store.delete(gone)
        found.changed = True
    if high is not None and len(var.children) < high:
        found.changed = True
    return found


def has_more(var: Varobj, to: int | None) -> bool:
    """gdb's varobj_has_more: children past `to`, or (at `to` or with no bound) one read
    past the listed ones."""
    count = len(var.children)
    return (to is not None and count > to) or ((to is None or count == to) and var.has_more)


def children(store: VarobjStore, var: Varobj, to: int | None) -> tuple[list[Varobj], bool]:
    """-var-list-children: `var`'s children up to `to` (all when None), made as needed,
    and whether more follow. As gdb's, a listing after one that read them all starts
    again, and one bounded by `to` then deletes the children past `to`."""
    var.children_requested = True
    _pass(store, var, False, 0, to)
    have = [store.vars[name] for name in var.children if name in store.vars]
    return (have if to is None else have[:to]), has_more(var, to)


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
            made, more = children(store, var, (var.update_range or (0, None))[1])
            entry["new_num_children"] = str(len(made))
            var.has_more = more
            entry |= dynamic_fields(var)
            entry["new_children"] = [child.name for child in made[had:]]
            return [entry]
        return [entry | dynamic_fields(var)]
    shown = value_text(info)
    changed = shown != var.value or not var.in_scope or var.assigned
    var.value, var.in_scope, var.assigned = shown, True, False
    entry = {"name": var.name, "value": shown, "in_scope": "true", "type_changed": "false"}
    low, high = var.update_range or (None, None)
    if not var.children_requested:
        # gdb: children never listed are not read, unless it had none and may have now.
        if not has_more(var, 0):
            count = info.printer.count
            var.has_more = bool(count) if count is not None else info.printer.has_children
            changed = changed or var.has_more
        return [entry | dynamic_fields(var, high)] if changed else []
    found = _pass(store, var, True, low, high, cap=UPDATE_LIMIT)
    if found is None:
        return []
    changes: list[dict[str, Value]] = []
    if found.changed or found.made:
        entry["new_num_children"] = str(len(var.children))
    if changed or "new_num_children" in entry:
        entry |= dynamic_fields(var, high)
        if found.made:
            entry["new_children"] = [child.name for child in found.made]
        changes.append(entry)
    # gdb's order: the children whose own value stayed (for changes below them), then
    # those whose value changed.
    kept = [(child, kid, 2 if child.type != kid.type else int(store.shown(child, kid) != child.value))
            for child, kid in found.kept]  # fmt: skip
    for child, kid, _ in sorted(kept, key=lambda item: item[2]):
        changes += store.update(child, kid)
    return changes


def dynamic_fields(var: Varobj, to: int | None = None) -> dict[str, Value]:
    out: dict[str, Value] = {"displayhint": var.hint} if var.hint else {}
    return out | {"dynamic": "1", "has_more": "1" if has_more(var, to) else "0"}


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
    read_past = var.has_more
    take(var, info if store.printing(var) else _without_printer(info))
    if not var.dynamic:  # gdb keeps the child it had read past the listed ones: has_more
        var.has_more = read_past


def _plain_numchild(info: VariableInfo) -> int:
    from aliceserver.adapters.mi.varobj import _numchild

    return _numchild(info)


def _without_printer(info: VariableInfo) -> VariableInfo:
    from dataclasses import replace

    return replace(info, printer=None)
