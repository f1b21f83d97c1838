"""C++ class var objects as gdb's (c-varobj.c): a class's children are its bases, named
after the base type, then one pseudo-child per access (`public`, `private`, `protected`)
that has members; those groups have no value or type, and their children are the members.

Paths are gdb's: a base `((class Base) obj)` (`(*(class Base*) p)` through a pointer), a
member of a group `((obj).field)` or `((p)->field)`.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from aliceserver.debuggers.model import VariableInfo

if TYPE_CHECKING:
    from aliceserver.adapters.mi.varobj import Varobj, VarobjStore

ACCESSES = ("public", "private", "protected")  # gdb lists the groups in this order
ANONYMOUS = "<anonymous>"  # the engine's name for an anonymous struct/union member


def anonymous_keyword(kid: VariableInfo) -> str:
    """gdb's `<anonymous struct>` for an unnamed struct member, `<anonymous union>` for
    any other (a union, a Rust enum's discriminant)."""
    return "struct" if kid.type.startswith(("struct", "class")) else "union"


def is_base(kid: VariableInfo) -> bool:
    return kid.name.startswith("<") and kid.name.endswith(">") and kid.name != ANONYMOUS


def in_group(kid: VariableInfo, access: str) -> bool:
    return not is_base(kid) and not kid.artificial and (kid.access or "public") == access


def class_children(store: VarobjStore, var: Varobj, kids: list[VariableInfo]) -> list[Varobj]:
    """The children of a class var object: its bases, then its non-empty access groups."""
    made = []
    for kid in kids:
        if not is_base(kid):
            continue
        base = kid.name[1:-1]
        path = f"(*(class {base}*) {var.path})" if var.pointer else f"((class {base}) {var.path})"
        made.append(store.adopt(var, store.make_child(var, f"{var.name}.{base}", base, path, kid)))
    counts = Counter(
        kid.access or "public" for kid in kids if not is_base(kid) and not kid.artificial
    )
    for access in ACCESSES:
        if counts[access]:
            made.append(store.adopt(var, _group(var, access, counts[access])))
    return made


def _group(var: Varobj, access: str, count: int) -> Varobj:
    from aliceserver.adapters.mi.varobj import Varobj

    return Varobj(f"{var.name}.{access}", access, "", "", "", count, False, False, var.floating,
                  var.tid, var.frame_key, group=access)  # fmt: skip


def group_children(
    store: VarobjStore, group: Varobj, owner: Varobj, kids: list[VariableInfo]
) -> list[Varobj]:
    """The members of `owner` (the class var object) with the access `group` stands for."""
    assert group.group is not None
    made = []
    join = "->" if owner.pointer else "."
    members = [(index, kid) for index, kid in enumerate(kids) if in_group(kid, group.group)]
    for position, (index, kid) in enumerate(members):
        if kid.name == ANONYMOUS:  # gdb: name `N_anonymous` (N: its place in the group)
            keyword = anonymous_keyword(kid)
            child = store.make_child(group, f"{group.name}.{position}_anonymous", f"<anonymous {keyword}>",
                                     owner.path, kid)  # fmt: skip (gdb: its members go by `.`)
            child.anonymous_index = index
        else:
            child = store.make_child(group, f"{group.name}.{kid.name}", kid.name,
                                     f"(({owner.path}){join}{kid.name})", kid)  # fmt: skip
        made.append(store.adopt(group, child))
    return made
