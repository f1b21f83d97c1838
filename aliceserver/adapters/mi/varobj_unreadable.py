"""Children of var objects whose memory cannot be read: gdb lists them by their types
(a struct's members, an array's elements), with no values."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.debuggers.model import VariableInfo
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.varobj import Varobj, VarobjStore


def members_of_type(store: VarobjStore, var: Varobj, target: VariableInfo) -> VariableInfo | None:
    """A struct that only a type is known of (`target`, what the pointer `var` points to),
    as one at address 0: its members are listed by their types, values unread."""
    where = store._frame_level(var)
    if where is None or target.type.endswith("}"):  # an unnamed type: no cast names it
        return None
    try:
        found = store.session.evaluate(f"*({target.type} *) 0", tid=where[0], level=where[1])
    except AliceError:
        return None
    return found if found.reference else None


def elements(store: VarobjStore, var: Varobj) -> list[VariableInfo]:
    """The elements of the array `var` that cannot be read, each by its type alone."""
    where = store._frame_level(var)
    if where is None:
        return []
    found = []
    for index in range(var.numchild):
        try:
            element = store.session.evaluate(f"({var.path})[{index}]", tid=where[0], level=where[1],
                                             type_only=True)  # fmt: skip
        except AliceError:
            return []
        found.append(VariableInfo(name=f"[{index}]", type=element.type, value="",
                                  aggregate=element.aggregate, named_children=element.named_children,
                                  indexed_children=element.indexed_children))  # fmt: skip
    return found
