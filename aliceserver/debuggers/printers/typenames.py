"""Type names as gdb's `whatis` and `ptype` show them through the scripts' type printers
(typeprint.c): `std::vector<int>` for `std::vector<int, std::allocator<int> >`.

gdb asks the recognizers (`gdb.types.get_type_recognizers()`, instantiated once per
command) about the type it prints, then, where none answers, about each type named in its
template arguments (cp_canonicalize_string_full with find_typedef). MI `type=` fields,
`(T *)` prefixes of values and `print` never use them, nor does `whatis/r`.

Called inside a printer call (context.entered).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from aliceserver.debuggers.printers.gdbtype import Type, find_type, template_arguments
from aliceserver.debuggers.symbols.dwarf.names import canonical
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    PointerType,
    QualifiedType,
    ReferenceType,
    StructType,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.types import Type as DwarfType

log = logging.getLogger(__name__)

_MAX_DEPTH = 8  # template arguments nest no deeper in a name anyone reads

Recognize = Callable[[DwarfType], str | None]


def recognizer() -> Recognize | None:
    """What the session's type printers make of one type (None: they make nothing of
    it), their recognizers instantiated once as gdb does per command; None: no printers."""
    from aliceserver.debuggers.printers import gdb

    try:
        recognizers = gdb.types.get_type_recognizers()
    except Exception as exc:  # a type printer whose instantiate() fails: none apply
        log.debug("type printers failed to instantiate", exc_info=exc)
        return None
    if not recognizers:
        return None
    cache: dict[int, str | None] = {}

    def recognize(t: DwarfType) -> str | None:
        if id(t) not in cache:
            try:
                found = gdb.types.apply_type_recognizers(recognizers, Type(t))
            except Exception as exc:  # gdb prints the name itself when a recognizer fails
                log.debug("type printer failed on %s", type_name(t), exc_info=exc)
                found = None
            cache[id(t)] = found if isinstance(found, str) else None
        return cache[id(t)]

    return recognize


def shown_name(t: DwarfType, recognize: Recognize) -> str:
    """`t`'s name with its innermost named type as the type printers show it."""
    name = type_name(t)
    base = _innermost(t)
    shown = _named(base, recognize, 0)
    if base is t:
        return shown
    base_name = type_name(base)
    at = name.find(base_name)
    return name if at < 0 or shown == base_name else name[:at] + shown + name[at + len(base_name) :]


def _named(t: DwarfType, recognize: Recognize, depth: int) -> str:
    found = recognize(t)
    if found is not None:
        return found
    name = type_name(t)
    if depth >= _MAX_DEPTH or not isinstance(_unqualified(t), StructType) or not name.endswith(">"):
        return name
    return _canonical_arguments(name, recognize, depth)


def _canonical_arguments(name: str, recognize: Recognize, depth: int) -> str:
    """`Box<std::vector<int, std::allocator<int> > >` -> `Box<std::vector<int> >`: each
    argument that names a type, as the printers show it, in gdb's canonical spelling."""
    args = template_arguments(name)
    if not args:
        return name
    shown: list[str] = []
    changed = False
    for arg in args:
        found = _argument_type(arg)
        text = _named(found, recognize, depth + 1) if found is not None else arg
        if canonical(text) == canonical(arg):  # `XMLNode *` for `XMLNode*`: spelled as written
            text = arg
        changed = changed or text != arg
        shown.append(text)
    if not changed:
        return name
    head = name[: _open_bracket(name)]
    inner = ", ".join(shown)
    return f"{head}<{inner}{' ' if inner.endswith('>') else ''}>"


def _argument_type(arg: str) -> DwarfType | None:
    if not arg or arg[0].isdigit() or arg[0] == "-" or arg in ("true", "false"):
        return None  # a value argument
    try:
        return find_type(arg)
    except Exception:
        return None


def _open_bracket(name: str) -> int:
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        depth += {">": 1, "<": -1}.get(name[i], 0)
        if depth == 0:
            return i
    return len(name)


def _innermost(t: DwarfType) -> DwarfType:
    for _ in range(64):
        if isinstance(t, (PointerType, ReferenceType)):
            t = t.target
        elif isinstance(t, QualifiedType):
            t = t.target
        elif isinstance(t, ArrayType):
            t = t.element
        else:
            return t
    return t


def _unqualified(t: DwarfType) -> DwarfType:
    while isinstance(t, QualifiedType):
        t = t.target
    return t


def any_printers(session: Any) -> bool:
    """Whether any type printer is registered (else names are left as they are)."""
    lists = [o.type_printers for o in session.objfiles.values()]
    return any(lists) or bool(session.progspace.type_printers) or bool(session.type_printers)
