"""Variable objects (-var-*): named expressions re-evaluated at each stop.

A varobj keeps the expression that reaches it (gdb's path expression) and re-evaluates it
in its frame, found again by function and CFA; children are made on request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from aliceserver.adapters.mi import varobj_cplus as cplus
from aliceserver.adapters.mi import varobj_dynamic as dynamic
from aliceserver.adapters.mi import varobj_unreadable as unreadable
from aliceserver.adapters.mi.frames import display_value, is_aggregate
from aliceserver.adapters.mi.output import Value
from aliceserver.adapters.mi.register_info import is_register_name
from aliceserver.adapters.mi.registry import MiError
from aliceserver.debuggers.model import DynamicTypes, VariableInfo, VariableScope
from aliceserver.errors import AliceError
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

# A name in an expression (not a member after . or ->, not a register after $).
_NAME = compiled_later(r"(?<![.$\w>])([A-Za-z_]\w*)")
_DOLLAR = compiled_later(r"\$([A-Za-z_]\w*)")
_QUALIFIERS = compiled_later(r"(\s*\b(const|volatile))+\s*$|\s+$")
_OUTER_BOUND = compiled_later(r"\[(\d+)\]")  # the first bound of `char [2][3]` is its count
# With print object on, gdb's var objects of pointers and references take the dynamic type.
_DYNAMIC = DynamicTypes.POINTERS
ANONYMOUS = "<anonymous>"  # the engine's name for an anonymous struct/union member
FORMATS = {"natural": None, "hexadecimal": "x", "octal": "o", "binary": "t", "decimal": "d",
           "zero-hexadecimal": "z"}  # fmt: skip


@dataclass
class Varobj:
    name: str
    exp: str  # what gdb shows as exp: the expression, a field name, an index
    path: str  # an expression that evaluates to it
    type: str
    value: str
    numchild: int
    aggregate: bool
    pointer: bool
    floating: bool  # created with frame "@": evaluated in the selected frame
    tid: int | None
    frame_key: tuple[str | None, int | None] | None  # (function, cfa) of its frame
    parent: str | None = None
    children: list[str] = field(default_factory=list)
    format: str = "natural"
    in_scope: bool = True
    thread_number: int | None = None
    assigned: bool = False  # by -var-assign since the last -var-update
    # An anonymous struct/union member: no expression reaches it, so its children are
    # found through its parent's (at this index) and their paths go through the parent.
    # So are a Rust enum's discriminant and variant, and all below them: gdb's path
    # expression of a variant (`(ok).Ok`) is no Rust expression.
    anonymous_index: int | None = None
    rust_enum: bool = False  # a Rust enum (or a pointer to one): its children are so found
    # A pretty printer shows it (gdb's dynamic var object): its children are the printer's.
    dynamic: bool = False
    hint: str | None = None  # the printer's display_hint
    # A child read past those listed (gdb's saved item; or any, before listing): the next
    # listing goes on from there; without it, a listing starts again from the first.
    has_more: bool = False
    children_requested: bool = False  # -var-list-children ran: -var-update reads them anew
    dynamic_index: int | None = None  # a dynamic var object's child: its index there
    visualizer: bool | None = None  # -var-set-visualizer: printer or not; None: the session's
    # -var-set-update-range FROM TO; a bound below zero is none (gdb: all children)
    update_range: tuple[int | None, int | None] | None = None
    # A C++ class's `public`/`private`/`protected` pseudo-child: no value, type or path;
    # its children are its parent's members of that access.
    group: str | None = None
    # Listed through a window, which made only its children: gdb made them all, and its
    # -var-delete counts them.
    windowed: bool = False
    # -var-set-frozen 1: -var-update * passes it and its children by; it keeps the value
    # it had (stale) until an update reaches it, as gdb's var objects keep theirs.
    frozen: bool = False
    stale: bool = False


class VarobjStore:
    def __init__(self, session: MiSession) -> None:
        self.session = session
        self.vars: dict[str, Varobj] = {}
        self._next = 1
        self.pretty = False  # -enable-pretty-printing: before it var objects are raw, as gdb's

    # --- creation ----------------------------------------------------------------------
    def create(self, name: str, frame_spec: str, expression: str, thread: int | None = None,
               frame: int | None = None, log: Callable[[str], None] | None = None) -> Varobj:
        """`-var-create NAME FRAME EXPRESSION` in the command's `--thread`/`--frame`
        context (else the selected frame); FRAME `*` that frame, `@` floating, or an
        address naming a frame by its CFA or pc. `log`: gdb's error stream (a printer's
        `Python Exception` lines)."""
        session = self.session
        if name == "-":
            name = f"var{self._next}"
            self._next += 1
        tid: int | None = None
        level = 0
        key = None
        inferior = session.inferior
        if inferior.process is not None and not inferior.running:
            tid, level = session.context_frame(thread, frame)
            if frame_spec not in ("*", "@"):
                level = self._level_of_address(frame_spec, tid)
        info = self._created_value(expression, tid, level, log)
        if name in self.vars:  # gdb: only an expression it could make into one is refused so
            raise MiError(f'-var-create: Duplicate variable object name "{name}"')
        if self.pretty and info.printer_refused:  # gdb's install_default_visualizer
            if log is not None:
                log("".join(info.printer_errors[:1]))
            raise MiError("Cannot instantiate printer for default visualizer")
        frame_bound = tid is not None and self._reads_frame(expression, tid, level)
        if frame_bound:
            assert tid is not None
            try:
                shown = session.frames.frame(tid, level)
                key = (shown.function, shown.cfa)
            except AliceError:
                key = None
        var = self._make(name, expression, expression, info, frame_spec == "@", tid, key)
        # gdb ties a var object to a frame and thread only when its expression reads a
        # variable of the frame; one of globals never leaves scope and has no thread-id.
        var.thread_number = inferior.threads.get(tid) if frame_bound and tid is not None else None
        self.vars[name] = var
        return var

    def _created_value(self, expression: str, tid: int | None, level: int,
                       log: Callable[[str], None] | None) -> VariableInfo:
        """The value of a new var object; one that cannot be read has its type alone and no
        value (`**0`: an int), as gdb's."""
        session = self.session
        try:
            return session.evaluate(expression, None if self.pretty else "r", tid=tid, level=level, shown=_DYNAMIC)
        except AliceError as error:
            if str(error).startswith("Attempt to use a type name"):
                if log is not None:
                    log(f"{error}.\n")  # gdb says why on its error stream
                raise MiError("-var-create: unable to create variable object") from None
        try:
            return session.evaluate(expression, tid=tid, level=level, shown=_DYNAMIC, type_only=True)
        except AliceError:
            raise MiError("-var-create: unable to create variable object") from None

    def _reads_frame(self, expression: str, tid: int, level: int) -> bool:
        """Whether the expression names an argument or local of the frame (not only globals),
        or one of its registers (gdb's INNERMOST_BLOCK_FOR_REGISTERS: `$pc` in frame 1 stays
        frame 1's)."""
        if any(is_register_name(match.group(1)) for match in _DOLLAR().finditer(expression)):
            return True
        names = {match.group(1) for match in _NAME().finditer(expression)}
        if not names:
            return False
        debugger = self.session.debugger
        try:
            frame_names = {info.name for scope in (VariableScope.ARGUMENTS, VariableScope.LOCALS)
                           for info in debugger.frame_variables(tid, level, scope,
                                                                aggregate_values=False)}
        except AliceError:
            return True
        return not names.isdisjoint(frame_names)

    def _level_of_address(self, text: str, tid: int | None) -> int:
        try:
            address = int(text, 0)
        except ValueError:
            return 0
        if tid is None:
            return 0
        found = self.session.frames.find(tid, lambda f: address in (f.cfa, f.pc))
        return found.level if found is not None else 0

    def _make(self, name: str, exp: str, path: str, info: VariableInfo, floating: bool,
              tid: int | None, key: tuple[str | None, int | None] | None) -> Varobj:
        info = self.through_reference(info)
        aggregate = is_aggregate(info)
        bare = _QUALIFIERS().sub("", info.type)  # `T * const` (this) is a pointer too
        # int (*)[3] too, and Rust's pointers, references and boxes (gdb: `*mut T`)
        pointer = bare.endswith("*") or "(*)[" in info.type or info.type.startswith(("*mut ", "*const "))
        var = Varobj(name, exp, path, info.type, self._shown(info, aggregate), _numchild(info),
                     aggregate, pointer, floating, tid, key, rust_enum=info.variant is not None)
        self._count_null_pointer_children(var, info)  # a printer's child too (get() of a ptr)
        dynamic.take(var, info)
        return var

    def printing(self, var: Varobj) -> bool:
        """Whether pretty printers show `var` (-enable-pretty-printing, -var-set-visualizer)."""
        return self.pretty if var.visualizer is None else var.visualizer

    def _shown(self, info: VariableInfo, aggregate: bool) -> str:
        if info.class_children is not None and info.type.rstrip().endswith("&"):
            return "{...}"  # a reference to a class: gdb shows what it refers to
        if aggregate:
            if is_array(info):
                return f"[{_array_count(info)}]"
            return "{...}"
        shown = display_value(info)  # (a pointer's `(T *) ` prefix gone)
        if shown.startswith("<error"):
            return ""  # gdb: a var object whose value cannot be read shows none
        return shown

    def get(self, name: str) -> Varobj:
        var = self.vars.get(name) or self._unmade(name)
        if var is None:
            raise MiError("Variable object not found")
        return var

    def _unmade(self, name: str) -> Varobj | None:
        """An element a window did not make (gdb made them all): made when it is named."""
        parent_name, _, index = name.rpartition(".")
        parent = self.vars.get(parent_name)
        if parent is None or not parent.windowed or not index.isdigit() or int(index) >= parent.numchild:
            return None
        made, _ = self.window(parent, int(index), int(index) + 1)
        return made[0] if made and made[0].name == name else None

    # --- evaluation --------------------------------------------------------------------
    def _frame_level(self, var: Varobj) -> tuple[int | None, int] | None:
        """(tid, level) to evaluate `var` in now, or None when its frame is gone."""
        inferior = self.session.inferior
        if inferior.process is None or inferior.running:
            return None if var.tid is not None else (None, 0)
        if var.floating or var.frame_key is None:
            return inferior.selected_tid, inferior.selected_level
        tid = var.tid if var.tid in inferior.threads else inferior.selected_tid
        if tid is None:
            return None
        found = self.session.frames.find(tid, lambda f: (f.function, f.cfa) == var.frame_key)
        return (tid, found.level) if found is not None else None

    def evaluate(self, var: Varobj, fmt: str | None = None) -> VariableInfo | None:
        where = self._frame_level(var)
        if where is None:
            return None
        tid, level = where
        code = FORMATS.get(fmt or var.format)
        if code is None and not self.printing(var):
            code = "r"  # gdb's var objects are raw until pretty printing is enabled
        if var.dynamic_index is not None and var.parent in self.vars:
            return dynamic.child_info(self, self.vars[var.parent], var.dynamic_index, fmt or var.format)
        if var.anonymous_index is not None and var.parent in self.vars:
            return self._info(var, fmt or var.format)
        try:
            info = self.session.evaluate(var.path, code, tid=tid, level=level, shown=_DYNAMIC)
        except AliceError:
            return None
        return self.through_reference(info)

    def through_reference(self, info: VariableInfo) -> VariableInfo:
        """A reference to a scalar or pointer as gdb's var objects show it: the value it
        refers to (`15`, not `@0x7ffc...: 15`), with that value's children."""
        text = info.type.rstrip()
        if (not text.endswith("&") or info.class_children is not None or "(&" in text
                or info.printer is not None or not info.reference):  # fmt: skip
            return info
        try:
            kids = self.session.debugger.variable_children(info.reference)
        except AliceError:
            return info
        if len(kids) != 1 or kids[0].name != "*":
            return info
        return replace(kids[0], name=info.name, type=info.type)

    def value_of(self, var: Varobj, fmt: str | None = None) -> str:
        if var.group is not None:
            return ""
        if var.stale and fmt in (None, var.format):
            return var.value  # passed by while frozen: gdb shows the value it kept
        info = self.evaluate(var, fmt)
        if info is None:
            return var.value
        return self.shown(var, info)

    def shown(self, var: Varobj, info: VariableInfo) -> str:
        if info.printer is not None and self.printing(var):
            return dynamic.value_text(info)
        return self._shown(info, var.aggregate)

    def children(self, var: Varobj) -> list[Varobj]:
        if var.dynamic:
            return dynamic.children(self, var, None)[0]
        if var.children and len(var.children) >= var.numchild:
            return [self.vars[n] for n in var.children if n in self.vars]
        owner = self.vars.get(var.parent) if var.group is not None and var.parent else var
        if owner is None:
            return []
        info = self._info(owner)
        if info is None and not (var.numchild and (var.pointer or var.type.endswith("]"))):
            return []
        if info is not None:
            kids = self._kids(owner, info)
        else:  # its own memory unreadable: gdb lists the children by their types
            kids = self._unreadable_pointee(var) if var.pointer else unreadable.elements(self, var)
        if var.group is not None:
            return cplus.group_children(self, var, owner, kids)
        if info is not None and info.class_children is not None and info.printer is None:
            return cplus.class_children(self, var, kids)
        made = [self._plain_child(var, index, kid) for index, kid in enumerate(kids)]
        var.children = [child.name for child in made]  # in order, after windows made some
        return made

    def window(self, var: Varobj, low: int, high: int) -> tuple[list[Varobj], int]:
        """Children [low, high) of a non-dynamic `var`, and how many it has: only those of
        a plain array are made (gdb makes all: 65536 elements took a minute)."""
        info = None
        if var.group is None and not (var.children and len(var.children) >= var.numchild):
            info = self._info(var)
        if (info is None or info.class_children is not None or info.printer is not None
                or not info.reference or info.named_children):  # members: few, all made
            every = self.children(var)
            return every[low:high], len(every)
        total = _numchild(info)
        if low >= min(high, total):
            return [], total
        try:
            kids = self.session.debugger.variable_children(info.reference, low, min(high, total) - low)
        except AliceError:
            return [], total
        var.windowed = True
        return [self._plain_child(var, low + i, kid) for i, kid in enumerate(kids)], total

    def _plain_child(self, var: Varobj, index: int, kid: VariableInfo) -> Varobj:
        """Child `index` of a struct or array (made once: a later listing keeps it)."""
        if kid.name == ANONYMOUS:  # gdb: name `N_anonymous`, exp `<anonymous union>`
            keyword = cplus.anonymous_keyword(kid)
            # gdb: its members' paths go through the nearest named ancestor, joined by `.`
            # even when that one is a pointer (`(*(ptr)).b`, which gdb and we accept)
            child = self.make_child(var, f"{var.name}.{index}_anonymous", f"<anonymous {keyword}>", var.path, kid)
            child.anonymous_index = index
        else:
            exp, path = _child_expression(var, kid.name)
            child = self.make_child(var, f"{var.name}.{exp}", exp, path, kid)
            if var.rust_enum or (var.anonymous_index is not None and not var.exp.startswith("<anonymous")):
                child.anonymous_index = index  # a variant, or below one: no expression reaches it
        return self.adopt(var, child)

    def _kids(self, var: Varobj, info: VariableInfo) -> list[VariableInfo]:
        """The engine's children of `var` (whose value is `info`)."""
        if not info.reference and is_char_pointer(info.type):
            return self._pointee(var)
        if not info.reference and var.pointer and var.numchild:
            return self._unreadable_pointee(var)  # a null pointer: gdb lists the members
        if not info.reference:
            return []
        try:
            return self.session.debugger.variable_children(info.reference)
        except AliceError:
            return []

    def make_child(self, parent: Varobj, name: str, exp: str, path: str, kid: VariableInfo) -> Varobj:
        return self._make(name, exp, path, kid, parent.floating, parent.tid, parent.frame_key)

    def adopt(self, parent: Varobj, child: Varobj) -> Varobj:
        """`child` as `parent`'s; one made before (when listed again after -var-delete of
        another child) is kept as it is, as gdb's."""
        if child.name in parent.children and child.name in self.vars:
            return self.vars[child.name]
        child.parent = parent.name
        child.thread_number = parent.thread_number
        self.vars[child.name] = child
        parent.children.append(child.name)
        return child

    def _count_null_pointer_children(self, var: Varobj, info: VariableInfo) -> None:
        """gdb counts a pointer's children by its type, whatever it holds: a null pointer
        to a struct has the struct's members, one to a scalar one child (the engine gives
        a pointer it cannot follow none)."""
        if not var.pointer or var.numchild or is_char_pointer(info.type):
            return  # (a pointer that cannot be read itself too: gdb goes by its type)
        if info.type.replace(" ", "") in ("void*", "constvoid*"):
            return
        target = self._target(var)
        if target is None or target.type.endswith(")"):  # a function: no children
            return
        struct = target.aggregate and not is_array(target)
        var.numchild = target.named_children if struct else 1

    def _target(self, var: Varobj) -> VariableInfo | None:
        """What the pointer `var` points to (evaluated, whether readable or not)."""
        where = self._frame_level(var)
        if where is None:
            return None
        try:
            return self.session.evaluate(f"*({var.path})", tid=where[0], level=where[1])
        except AliceError:
            pass
        try:  # the pointer itself unreadable (under a null pointer): its type still counts
            return self.session.evaluate(f"*({var.path})", tid=where[0], level=where[1], type_only=True)
        except AliceError:
            return None

    def _unreadable_pointee(self, var: Varobj) -> list[VariableInfo]:
        target = self._target(var)
        if target is None:
            return []
        if not target.reference and target.aggregate and not target.value:
            target = unreadable.members_of_type(self, var, target)  # the pointer itself unreadable
            if target is None:
                return []
        if not target.reference or target.type.rstrip().endswith("]"):
            return [replace(target, name="*")]
        try:
            return self.session.debugger.variable_children(target.reference)
        except AliceError:
            return []

    def _info(self, var: Varobj, fmt: str = "natural") -> VariableInfo | None:
        """`var`'s value with its engine reference (for its children)."""
        parent = self.vars.get(var.parent) if var.parent else None
        if parent is not None and parent.group is not None:  # a group's member: its class's
            parent = self.vars.get(parent.parent) if parent.parent else None
        if var.anonymous_index is None or parent is None:
            return self.evaluate(var, fmt)
        above = self._info(parent, fmt)
        if above is not None and not above.reference and parent.pointer:
            above = self._target(parent)  # under a null pointer: the members still list
        if above is None or not above.reference:
            return None
        try:
            kids = self.session.debugger.variable_children(above.reference)
        except AliceError:
            return None
        return kids[var.anonymous_index] if var.anonymous_index < len(kids) else None

    def _pointee(self, var: Varobj) -> list[VariableInfo]:
        """The one child of a char pointer: the char it points to (`*p`)."""
        info = self._target(var)  # gdb goes by the type where the char cannot be read
        return [] if info is None else [replace(info, name=f"*{var.exp}")]

    def update(self, var: Varobj, known: VariableInfo | None = None,
               explicit: bool = True) -> list[dict[str, Value]]:
        """Changed entries of `var` and its children (gdb's changelist items); `known`:
        its value, when its parent's printer just gave it. Not `explicit` (-var-update *),
        a frozen one is passed by; frozen children are always."""
        changes: list[dict[str, Value]] = []
        if var.frozen and not explicit:
            self._keep_values(var)
            return changes
        var.stale = False
        if var.group is not None:  # no value of its own: its members may have changed
            for name in list(var.children):
                child = self.vars.get(name)
                changes += self._update_child(child) if child is not None else []
            return changes
        info = known if known is not None else self.evaluate(var)
        if info is not None and (var.dynamic or (info.printer is not None and self.printing(var))):
            return dynamic.update(self, var, info)
        if info is None:
            if var.in_scope and (var.tid is not None or var.frame_key is not None):  # (a new run too)
                var.in_scope = False
                # a printer's hint and `dynamic` go with it still (gdb's varobj_update_one)
                hint: dict[str, Value] = dynamic.dynamic_fields(var) if var.dynamic else {"has_more": "0"}
                changes.append({"name": var.name, "in_scope": "false", "type_changed": "false"} | hint)
            return changes
        # gdb remakes a root only where its type may change: a floating one, a pointer
        # with print object (a child's may be read differently); a fixed root keeps its
        # type and takes the new value ($tpnum void, then 10).
        if info.type != var.type and var.parent is None and (var.floating or var.pointer):
            return self._type_changed(var, info)
        shown = self._shown(info, var.aggregate)
        if shown != var.value or not var.in_scope or var.assigned:
            var.value = shown
            var.in_scope = True
            var.assigned = False
            changes.append({"name": var.name, "value": shown, "in_scope": "true",
                            "type_changed": "false", "has_more": "0"})
        for name in list(var.children):
            child = self.vars.get(name)
            if child is not None:
                changes += self._update_child(child)
        return changes

    def _type_changed(self, var: Varobj, info: VariableInfo) -> list[dict[str, Value]]:
        """gdb: a var object whose type changed (a floating one in another frame, a pointer
        to another dynamic type with print object on) is made anew, without children."""
        self.delete(var, only_children=True)
        fresh = self._make(var.name, var.exp, var.path, info, var.floating, var.tid, var.frame_key)
        var.type, var.value, var.numchild = fresh.type, fresh.value, fresh.numchild
        var.aggregate, var.pointer, var.in_scope, var.assigned = fresh.aggregate, fresh.pointer, True, False
        return [{"name": var.name, "value": var.value, "in_scope": "true", "type_changed": "true",
                 "new_type": var.type, "new_num_children": str(var.numchild), "has_more": "0"}]

    def _update_child(self, child: Varobj) -> list[dict[str, Value]]:
        return self.update(child, explicit=False)  # gdb: a frozen child is not looked at

    def _keep_values(self, var: Varobj) -> None:
        """`var` and all below it keep their values (gdb re-reads none of them)."""
        var.stale = True
        for name in var.children:
            child = self.vars.get(name)
            if child is not None:
                self._keep_values(child)

    def delete(self, var: Varobj, only_children: bool = False) -> int:
        count = max(0, var.numchild - len(var.children)) if var.windowed else 0
        var.windowed = False
        for name in list(var.children):
            child = self.vars.get(name)
            if child is not None:
                count += self.delete(child)
        var.children.clear()
        if not only_children:
            self.vars.pop(var.name, None)
            if var.parent and var.parent in self.vars:
                parent = self.vars[var.parent]
                if var.name in parent.children:
                    parent.children.remove(var.name)
            count += 1
        return count

    def language(self, var: Varobj) -> str:
        """The language of `var`'s frame, as gdb names it in -var-info-expression."""
        while var.parent and var.parent in self.vars:
            var = self.vars[var.parent]
        where = self._frame_level(var)
        if where is None or where[0] is None:
            return "C"
        try:
            language = self.session.debugger.frame_details(where[0], where[1]).language
        except AliceError:
            return "C"
        return _LANGUAGES.get(language or "c", "C")

    def roots(self) -> list[Varobj]:
        # Newest first: gdb keeps its root list so (-var-update * lists changes in that order).
        return [v for v in reversed(self.vars.values()) if v.parent is None]

    def invalidate_references(self) -> None:
        """The engine's value references die when the program resumes; ours re-evaluate.
        A frozen var object and those below it keep the values they had (gdb shows them
        until a -var-update reaches them, also after -var-set-frozen 0)."""
        for var in self.vars.values():
            if var.frozen:
                self._keep_values(var)

    def program_gone(self) -> None:
        for var in self.vars.values():
            if var.tid is not None:
                var.tid = None


_LANGUAGES = {"c++": "C++", "rust": "Rust", "fortran": "Fortran", "d": "D", "go": "Go", "ada": "Ada"}
_CHAR_TYPES = frozenset({"char", "signed char", "unsigned char", "wchar_t", "char16_t", "char32_t"})


def is_char_pointer(type_name: str) -> bool:
    """`char *`, `const char *`...: printed as a string, yet gdb gives it a child, `*p`."""
    text = type_name.strip()
    if not text.endswith("*") or text.endswith("**"):
        return False
    words = [w for w in text[:-1].split() if w not in ("const", "volatile")]
    return " ".join(words) in _CHAR_TYPES


def is_array(info: VariableInfo) -> bool:
    """An array, also behind a typedef (std::array's `_Type`): elements and no members."""
    if info.type.rstrip().endswith("]"):
        return True
    return (info.aggregate and info.printer is None and info.class_children is None
            and info.indexed_children > 0 and info.named_children == 0)


def _array_count(info: VariableInfo) -> int:
    """An array's element count, from its type when its memory could not be read."""
    if info.indexed_children or not info.error:
        return info.indexed_children
    found = _OUTER_BOUND().search(info.type)
    return int(found.group(1)) if found else 0


def _numchild(info: VariableInfo) -> int:
    if info.class_children is not None:  # gdb's C++ children: bases and access groups
        return info.class_children
    if info.aggregate and info.error and info.type.rstrip().endswith("]"):
        return _array_count(info)
    if not info.reference:
        return 1 if is_char_pointer(info.type) else 0
    return info.named_children + info.indexed_children


def _child_expression(parent: Varobj, name: str) -> tuple[str, str]:
    if name.startswith("[") and name.endswith("]"):
        index = name[1:-1]
        return index, f"({parent.path})[{index}]"
    if name.startswith("*"):  # a pointer's target: gdb names it after the pointer
        return (f"*{parent.exp}" if name == "*" else name), f"*({parent.path})"
    if parent.pointer:
        return name, f"({parent.path})->{name}"
    return name, f"({parent.path}).{name}"
