"""Evaluating expression trees with C semantics against a frame's symbols."""

from __future__ import annotations

import logging

from aliceserver.debuggers.symbols.dwarf import aarch64_registers, x86_registers
from aliceserver.debuggers.symbols.dwarf.dynamic import Rtti, dynamic_indirect
from aliceserver.debuggers.symbols.dwarf.expr import ast, decimal_ops, operators
from aliceserver.debuggers.symbols.dwarf.expr.calls import call_function
from aliceserver.debuggers.symbols.dwarf.expr.classcast import (
    c_cast,
    dynamic_cast,
    is_base_of,
    reinterpret_cast,
    same_class,
    upcast,
)
from aliceserver.debuggers.symbols.dwarf.expr.convert import (
    Builtins,
    decay,
    is_arith,
    is_floating,
    make,
    to_number,
    unary_promote,
)
from aliceserver.debuggers.symbols.dwarf.expr.cxxcalls import scoped_class
from aliceserver.debuggers.symbols.dwarf.expr.dollars import (
    ConvenienceValue,
    SessionValues,
    repeat,
    session_values,
)
from aliceserver.debuggers.symbols.dwarf.expr.evalsymbols import (
    EntryValues,
    EvalSymbols,
    KnowsConstants,
    ThreadRegisters,
    has_avx512,
    has_pkru,
    minimal_function,
)
from aliceserver.debuggers.symbols.dwarf.expr.methods import method_call, operator
from aliceserver.debuggers.symbols.dwarf.expr.nodebug import (
    checked,
    is_nodebug,
    minimal_data,
    read_as,
)
from aliceserver.debuggers.symbols.dwarf.expr.noprogram import (
    NoProgramSymbols,
    no_symbol,
)
from aliceserver.debuggers.symbols.dwarf.expr.operators import is_struct, no_class_operator
from aliceserver.debuggers.symbols.dwarf.expr.scopenames import missing_scoped_name
from aliceserver.debuggers.symbols.dwarf.expr.unplaced import (
    array_literal,
    in_target,
    memory_at,
    typed_literal,
    typed_string,
    value_cast,
)
from aliceserver.debuggers.symbols.dwarf.implicitptr import is_synthetic, moved
from aliceserver.debuggers.symbols.dwarf.locexpr import (
    NOT_SAVED,
    EvaluationError,
    ImplicitLoc,
    MemoryLoc,
    OptimizedOut,
    RegisterLoc,
)
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    EnumType,
    FunctionType,
    Member,
    MemberPointerType,
    PointerType,
    QualifiedType,
    ReferenceType,
    StructType,
    Type,
    TypedefType,
    VoidType,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.unwind import DWARF_REGISTERS
from aliceserver.debuggers.symbols.dwarf.values import Value, static_value
from aliceserver.debuggers.symbols.dwarf.x86_registers import FlagsType

log = logging.getLogger(__name__)


class Evaluator:
    def __init__(self, symbols: EvalSymbols, rtti: Rtti | None = None) -> None:
        self.symbols = symbols
        self.rtti = rtti
        # Casts move along class hierarchies with the dynamic type whatever print object
        # says (`rtti` is given only with it on): the program's RTTI comes with its symbols.
        self.classes: Rtti | None = rtti or getattr(symbols, "rtti", None)
        self.ctx = symbols.frame
        self.builtins = Builtins()
        self._resolved: dict[str, Value] = {}
        # gdb's EVAL_AVOID_SIDE_EFFECTS (whatis, ptype, sizeof's operand): the type only, so
        # `*p`, `p[i]` and `p->m` read no pointer and assignments write nothing.
        self.type_only = False
        self.outermost: ast.Expr | None = None  # the whole expression run (whatis of a name alone)
        self.dollars: SessionValues | None = None  # the session's $1 and $name values

    # --- helpers -------------------------------------------------------------------------
    def warn(self, text: str) -> None:
        """gdb's warning (without "warning: "), told where the symbols take them."""
        told = getattr(self.symbols, "warn", None)
        if told is not None:
            told(text)

    def truth_type(self) -> Type:
        return self.builtins.of("bool" if self.symbols.cplus else "int")

    def truth(self, flag: bool) -> Value:
        return Value.of_int(self.truth_type(), int(flag), self.ctx)

    def resolve_type(self, tname: ast.TypeName) -> Type:
        t = self.builtins.get(tname.base) or self.symbols.lookup_type(tname.base)
        keyword, _, tag = tname.base.partition(" ")
        if t is None and keyword in ("struct", "union", "enum", "class"):
            raise EvaluationError(f"No {keyword} type named {tag}.")
        if t is None:
            raise EvaluationError(f'No symbol "{tname.base.split()[-1]}" in current context.')
        if tname.const:
            t = QualifiedType(t, const=True)
        for _ in range(tname.pointers):
            t = PointerType(t)
        if tname.function_pointers:
            params = [self.resolve_type(p) for p in tname.params or ()]
            t = FunctionType(t, params, varargs=tname.varargs, prototyped=tname.params is not None or self.symbols.cplus)
            for _ in range(tname.function_pointers):
                t = PointerType(t)
        for count in reversed(tname.array):
            t = ArrayType(t, count)
        for _ in range(tname.array_pointers):
            t = PointerType(t)
        if tname.reference:
            t = ReferenceType(t, rvalue=tname.reference == "&&")
        return t

    def rvalue(self, value: Value) -> Value:
        return decay(in_target(self, value), self.builtins)

    def zero(self, t: Type, *, in_memory: bool = True) -> Value:
        """gdb's value_zero: a value of type `t` read from nowhere (type-only mode)."""
        try:
            size = 0 if isinstance(strip(t), VoidType) else strip(t).size
        except (EvaluationError, TypeError):
            size = 0  # an array of unknown size
        data = bytes(size)
        return Value(t, MemoryLoc(0) if in_memory else ImplicitLoc(data), self.ctx, _data=data)

    def target(self, value: Value) -> Value:
        """`*p` or a reference's referent; in type-only mode its type alone, nothing read."""
        t = strip(value.type)
        if self.type_only and isinstance(t, (PointerType, ReferenceType)):
            return self.zero(t.target)
        return value.pointer_target()

    def type_of(self, node: ast.Expr) -> Type:
        """The type of `node` evaluated in type-only mode (sizeof's operand, as gdb's)."""
        saved, self.type_only = self.type_only, True
        try:
            return self.eval(node).type
        finally:
            self.type_only = saved

    def char_type(self, name: str) -> Type:
        """A character literal's type: C++ has wchar_t, char16_t and char32_t built in, C
        has them where the program's debug info declares them (gdb's lookup_typename)."""
        if name == "char" or self.symbols.cplus:
            return self.builtins.of(name)
        declared = self.symbols.lookup_type(name)
        if declared is None:
            raise EvaluationError(f"No type named {name}.")
        return declared

    def right_type(self, node: ast.Expr) -> Type:
        """The type of `&&`'s or `||`'s right side, before it is run (gdb's look for a
        class's operator): gdb reads nothing for it, ours may (`p->x` reads p's target),
        so what cannot be read is no class."""
        try:
            return self.type_of(node)
        except EvaluationError:  # (a MemoryError_ too)
            return self.builtins.of("int")

    def type_alone(self, tname: ast.TypeName) -> Value:
        """A type name as the whole expression: whatis and ptype show it, print refuses it
        (gdb's OP_TYPE). A bare typedef name loses one level, as gdb's whatis shows it."""
        if not self.type_only:
            raise EvaluationError("Attempt to use a type name as an expression")
        t = self.resolve_type(tname)
        if isinstance(t, TypedefType):  # not `const T`: ptype (same evaluation) keeps it
            t = t.target
        return self.zero(t)

    def is_true(self, value: Value) -> bool:
        """gdb's value_logical_not negated: a number not zero, else any byte set (a struct,
        a union: `s ? a : b`, a condition on one)."""
        value = self.rvalue(value)
        if decimal_ops.is_decimal(value.type):
            return decimal_ops.number(value) != 0
        if isinstance(strip(value.type), (BaseType, PointerType)) or is_arith(value.type):
            return to_number(value) != 0
        return any(value.data())

    # --- dispatch -----------------------------------------------------------------------
    def check_names(self, node: ast.Expr) -> None:
        """Fail on unknown names anywhere, even in branches that will not run (as gdb,
        which resolves symbols while parsing)."""
        names: list[str | ast.EntryValue] = []
        stack: list[object] = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, ast.Call) and isinstance(item.function, ast.Member):
                stack.extend((item.args, item.function.base))  # a C++ method call
                continue
            if isinstance(item, ast.Call) and scoped_class(self, item.function) is not None:
                stack.append(item.args)  # Cls::f(x): a static member, looked up when called
                continue
            if isinstance(item, ast.Call) and isinstance(item.function, ast.Name) and self.symbols.cplus and (
                    "::" not in item.function.name):  # fmt: skip
                stack.extend((item.function, item.args))  # gdb's UNKNOWN_CPP_NAME call: its arguments first
                continue
            if isinstance(item, ast.Name):
                if "::" in item.name and (((scoped := self._class_field(item.name)) and scoped[2])
                                          or self._virtual_method(item.name)):  # fmt: skip
                    continue  # a class's data member or virtual method: told when evaluated (not for sizeof, &)
                names.append(item.name)
            elif isinstance(item, ast.EntryValue):  # gdb checks it is a parameter as it parses
                names.append(item)
            elif isinstance(item, tuple):  # reversed: the stack gives them left to right, as gdb parses
                stack.extend(reversed(item))
            elif hasattr(item, "__dataclass_fields__"):
                stack.extend(reversed([getattr(item, f) for f in item.__dataclass_fields__]))
        for name in names:
            if isinstance(name, ast.EntryValue):
                self.entry_type(name.name)
            else:
                self.name(name)

    def run(self, node: ast.Expr) -> Value:
        self.check_names(node)
        saved, self.outermost = self.outermost, node
        try:
            return self.eval(node)
        finally:
            self.outermost = saved

    def eval(self, node: ast.Expr) -> Value:
        if isinstance(node, ast.IntLit):
            return Value.of_int(self.builtins.of(node.type_name), node.value, self.ctx)
        if isinstance(node, ast.FloatLit):
            return make(self.builtins.of(node.type_name), node.value, self.ctx)
        if isinstance(node, ast.DecimalFloatLit):
            return decimal_ops.literal(self.builtins, node.digits, node.type_name, self.ctx)
        if isinstance(node, ast.CharLit):
            return Value.of_int(self.char_type(node.type_name), node.value, self.ctx)
        if isinstance(node, ast.StringLit):
            element = self.char_type(node.char_type)
            data = node.value + bytes(element.size)
            return Value.of_bytes(ArrayType(element, len(data) // element.size), data, self.ctx)
        if isinstance(node, ast.Name):
            return checked(self.name(node.name), whole_type_only=self.type_only and node is self.outermost)
        if isinstance(node, ast.Register):
            return self.register(node.name)
        if isinstance(node, ast.History):
            return session_values(self).access(node.number, self.ctx)
        if isinstance(node, ast.Repeat):
            return repeat(self, node)
        if isinstance(node, ast.EntryValue):
            if self.type_only:  # gdb's value_zero, not an lvalue
                return self.zero(self.entry_type(node.name), in_memory=False)
            return self.entry_symbols(node.name).entry_value(node.name)
        if isinstance(node, ast.Unary):
            return self.unary(node)
        if isinstance(node, ast.AlignofType):
            return Value.of_int(self.builtins.of("int"), alignment(self.resolve_type(node.type)), self.ctx)
        if isinstance(node, ast.SizeofType):
            return self.sizeof(self.resolve_type(node.type))
        if isinstance(node, ast.TypeExpr):
            return self.type_alone(node.type)
        if isinstance(node, ast.Cast) and isinstance(node.operand, ast.Call) and not isinstance(
            node.operand.function, ast.Member
        ):
            # The cast's type stands for the return type a function without debug info lacks.
            target = self.resolve_type(node.type)
            return c_cast(call_function(self, node.operand, target), target, self.builtins, self.classes)
        if isinstance(node, ast.Cast):  # a variable without debug info read as the type cast to
            target = self.resolve_type(node.type)
            operand = self.name(node.operand.name) if isinstance(node.operand, ast.Name) else self.eval_for(node.operand, target)
            if is_nodebug(operand):
                return self.zero(target, in_memory=False) if self.type_only else read_as(operand, target)
            return value_cast(self, operand, target)
        if isinstance(node, ast.NamedCast):
            operand, target = self.eval(node.operand), self.resolve_type(node.type)
            if node.kind == "dynamic_cast":
                return dynamic_cast(operand, target, self.classes)
            return reinterpret_cast(operand, target, self.builtins)
        if isinstance(node, ast.Binary):
            return self.binary(node)
        if isinstance(node, ast.Ternary):
            branch = node.then if self.is_true(self.eval(node.condition)) else node.otherwise
            return self.eval(branch)
        if isinstance(node, ast.Assign):
            return self.assign(node)
        if isinstance(node, ast.Comma):
            self.eval(node.first)
            return self.eval(node.then)
        if isinstance(node, ast.MemoryAt):
            return memory_at(self, node)
        if isinstance(node, ast.ArrayLit):
            return array_literal(self, [self.eval(element) for element in node.elements])
        if isinstance(node, ast.Index):
            base, index = self.eval(node.base), self.eval(node.index)
            found = operator(self, base, "operator[]", [index])  # a class's `[]`
            return found if found is not None else self.index(base, index)
        if isinstance(node, ast.Member):
            base = self.arrow(self.eval(node.base)) if node.arrow else self.eval(node.base)
            if node.arrow and self.rtti is not None:  # gdb: with print object, `->` only
                base = dynamic_indirect(base, self.rtti) or base
            return self.member(base, node.name, node.arrow)
        if isinstance(node, ast.Call) and isinstance(node.function, ast.Member):
            function = node.function
            obj = self.eval(function.base)
            if function.arrow:
                obj = self.arrow(obj)
                obj = self.deref(obj) if isinstance(strip(obj.type), PointerType) else obj
            return method_call(self, obj, function.name, [self.eval(a) for a in node.args])
        if isinstance(node, ast.Call):
            return call_function(self, node)
        raise EvaluationError("unsupported expression")

    def arrow(self, value: Value) -> Value:
        """`x->` where x is a class with operator-> (a smart pointer): what it returns, as
        often as it returns a class (gdb's loop), else x itself."""
        for _ in range(16):
            found = operator(self, value, "operator->", [])
            if found is None:
                break
            value = found
        return value

    def name(self, name: str) -> Value:
        # Each name is resolved once per evaluation (check_names resolves them all first).
        found = self._resolved.get(name)
        if found is None:
            found = self._name(name)
            if not self.type_only:  # (`Class::field` has a value only there: sizeof's)
                self._resolved[name] = found
        return found

    def _name(self, name: str) -> Value:
        lookup = name[2:] if name.startswith("::") else name
        value = self.symbols.lookup(lookup)
        if value is not None and not self.type_only and self._virtual_method(lookup):
            # gdb's value_struct_elt_for_reference: only its address (`&`) or type
            raise EvaluationError(f'Cannot reference virtual member function "{lookup.rpartition("::")[2]}"')
        if value is not None:
            return value
        if not name.startswith("::") and "::" not in name and self.symbols.cplus:
            this = self.symbols.lookup("this")
            if this is not None:  # members of the current object, as in C++
                try:
                    found = this.pointer_target().find_member(name)
                except EvaluationError:
                    found = None
                if found is not None:
                    return found
        minimal = minimal_function(self.symbols, lookup) or minimal_data(self.symbols, lookup)
        if minimal is not None:
            return minimal
        scoped = self._class_field(lookup)
        if scoped is not None:  # C++'s `Class::field`, as gdb's value_aggregate_elt
            cls, member, field = scoped
            if field is not None and self.type_only:  # sizeof, whatis: its type
                return self.zero(field.type)
            if field is not None:
                own = self._field_of_this(cls, field)
                if own is not None:
                    return own
                raise EvaluationError(f'Cannot reference non-static field "{member}"')
            static = next((m for m in cls.statics if m.name == member), None)
            if static is not None:  # an in-class constant, declared only (`static const int limit = 7`)
                return static_value(self.zero(cls), static)
            if cls.nested_type is None or cls.nested_type(member) is None:
                raise EvaluationError(f"There is no field named {member}")
        told = missing_scoped_name(self.symbols, lookup) if "::" in lookup else None
        raise EvaluationError(told or no_symbol(self.symbols, lookup))

    def _member_pointer(self, name: str) -> Value | None:
        """C++'s `&Class::field` and `&Class::method`, pointers to members as gdb makes them
        (value_aggregate_elt wanting an address): a data member's offset; a method's
        {code address, 0}, a virtual one's {vtable offset + 1, 0}. None: no class's member,
        or a static one (a plain pointer)."""
        scoped = self._class_field(name)
        if scoped is None:
            return None
        cls, member, field = scoped
        if field is not None:
            if field.offset is None:
                return None
            return Value(MemberPointerType(field.type, cls), ImplicitLoc(field.offset.to_bytes(8, "little")), self.ctx)
        value = self.symbols.lookup(name)  # (a virtual method's value is its address alone)
        if value is None:
            return None
        ftype = strip(value.type)
        this = strip(ftype.params[0]) if isinstance(ftype, FunctionType) and ftype.params else None
        if not isinstance(this, PointerType) or strip(this.target) is not cls or not isinstance(value.location, MemoryLoc):
            return None
        slot = _virtual_slot(cls, member)
        ptr = 8 * slot + 1 if slot is not None else value.location.address
        return Value(MemberPointerType(value.type, cls), ImplicitLoc(ptr.to_bytes(8, "little") + bytes(8)), self.ctx)

    def _field_of_this(self, cls: StructType, field: Member) -> Value | None:
        """`Class::field` in a method: `this` as a pointer to the class, as gdb casts it
        (value_struct_elt_for_reference): its own or a base's member, else the field at
        `this`'s address, whatever `this` points to (gdb reads it so). None: no `this`."""
        this = self.symbols.lookup("this") if self.symbols.cplus else None
        target = strip(this.type) if this is not None else None
        if this is None or not isinstance(target, PointerType) or field.name is None:
            return None
        obj = this.pointer_target()
        if same_class(obj.type, cls) or is_base_of(cls, obj.type):
            return obj.find_member(field.name)
        if field.offset is None or not isinstance(obj.location, MemoryLoc):
            return None
        return Value(field.type, MemoryLoc(obj.location.address + field.offset), self.ctx)

    def _virtual_method(self, name: str) -> bool:
        """Whether `name` is `Class::method` of a virtual member function."""
        found = scoped_class(self, ast.Name(name)) if "::" in name else None
        return found is not None and _virtual_slot(*found) is not None

    def _class_field(self, name: str) -> tuple[StructType, str, Member | None] | None:
        """(the class, the member's name, its data member or None) of `Class::name`; None
        where the scope is no class."""
        found = scoped_class(self, ast.Name(name)) if "::" in name else None
        if found is None:
            return None
        cls, member = found
        return cls, member, next((m for m in cls.members if m.name == member and not m.is_base), None)

    def entry_symbols(self, name: str) -> EntryValues:
        if not isinstance(self.symbols, EntryValues):  # symbols without frames (tests' fakes)
            raise EvaluationError(f'@entry can be used only for function parameters, not for "{name}"')
        return self.symbols

    def entry_type(self, name: str) -> Type:
        return self.entry_symbols(name).entry_type(name)

    def register(self, name: str) -> Value:
        frame = getattr(self.ctx, "frame", None)  # a FrameView: its frame knows its CPU
        aarch64 = getattr(getattr(frame, "arch", None), "name", "") == "aarch64"
        if aarch64:
            spec = aarch64_registers.lookup(name)
            if name == aarch64_registers.FRAME_BASE:  # gdb's frame base, not x29
                return self._aarch64_frame_base()
        else:
            spec = x86_registers.lookup(name, lambda: has_avx512(self.ctx), lambda: has_pkru(self.ctx))
        described = self._described(name)
        if described is not None and spec is None:  # the description's alone (SVE's z0)
            number = getattr(self.ctx, "described_regno", None)
            regno = number(name) if number is not None else None
            if regno is None:
                return Value(described[0], ImplicitLoc(described[1]), self.ctx)
            return Value(described[0], RegisterLoc(regno), self.ctx)
        if isinstance(self.symbols, NoProgramSymbols):  # gdb's i386 of no file
            self.symbols.check_register(name)
            spec = None
        if spec is not None and getattr(self.symbols, "no_registers", False):
            raise EvaluationError("No registers.")  # a file but no process yet
        if spec is None:  # not a register: a convenience variable, as gdb's $name
            return session_values(self).variable(name, self.ctx)
        ctx = self.ctx
        if not aarch64 and x86_registers.is_pseudo(name) and isinstance(ctx, ThreadRegisters):
            ctx = ctx.innermost()  # gdb 13 reads $eax, $al... of any frame from frame 0's rax
        if ctx.register(spec.regno) is None and isinstance(ctx, ThreadRegisters):
            if ctx.not_saved(spec.regno) and not x86_registers.is_pseudo(name):  # gdb's read 0
                return Value(spec.make(), OptimizedOut(NOT_SAVED), ctx)
            ctx = ctx.innermost()  # an outer frame's unsaved register: gdb's same value
        if ctx.register(spec.regno) is None:
            raise EvaluationError(f"value is not available: ${name}")
        # a raw register the description types (qemu's v0-v31 or vec128 unions, its eflags
        # with IOPL): that type, over our location; its scalars are the architecture's own
        shown = spec.make()
        if isinstance(shown, PointerType) and isinstance(shown.target, FunctionType) and self.symbols.cplus:
            shown = PointerType(FunctionType(shown.target.return_type))  # C++ writes `void (*)(void)`
        if described is not None and (isinstance(described[0], FlagsType) or not isinstance(described[0], BaseType)):
            shown = described[0]
        return Value(shown, RegisterLoc(spec.regno, spec.offset), ctx)

    def _described(self, name: str) -> tuple[Type, bytes] | None:
        """A stub's register `name` typed by its target description (the frame's
        described_register), as gdb types raw registers."""
        find = getattr(self.ctx, "described_register", None)
        return find(name) if find is not None else None

    def _aarch64_frame_base(self) -> Value:
        """$fp on aarch64: gdb's frame base (unwind.frame_base: x29 once the prologue
        pointed it at the frame, else sp), a data pointer that is no register."""
        from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame, frame_base

        unwound = getattr(self.ctx, "frame", None)  # a FrameView's frame
        base = frame_base(unwound, self.ctx.read_memory) if isinstance(unwound, UnwoundFrame) else None
        if base is None:
            raise EvaluationError("value is not available: $fp")
        return Value.of_int(aarch64_registers.data_pointer(), base, self.ctx)

    def sizeof(self, t: Type) -> Value:
        s = strip(t)
        if isinstance(s, ReferenceType):
            s = strip(s.target)
        if isinstance(s, VoidType):
            size = 1
        elif isinstance(s, ArrayType) and s.count is None:
            raise EvaluationError("cannot take sizeof an array of unknown size")
        else:
            size = s.size
        return Value.of_int(self.builtins.of("int"), size, self.ctx)  # gdb's type for sizeof

    # --- operators ---------------------------------------------------------------------
    def unary(self, node: ast.Unary) -> Value:
        op = node.op
        if op == "sizeof":
            inner = node.operand
            if isinstance(inner, ast.Unary) and inner.op == "*":  # gdb's unop_ind evaluate_for_sizeof:
                pointed = strip(self.type_of(inner.operand))  # no class's operator* there
                if not isinstance(pointed, (PointerType, ReferenceType, ArrayType)):
                    raise EvaluationError("Attempt to take contents of a non-pointer value.")
            return self.sizeof(self.type_of(node.operand))
        if op == "&":
            operand_node = node.operand
            if isinstance(operand_node, ast.Name):
                pointer = self._member_pointer(operand_node.name) if "::" in operand_node.name else None
                if pointer is not None:
                    return pointer
                return self.address_of_name(operand_node.name, self.name(operand_node.name))
            return self.address_of(self.eval(operand_node))
        operand = self.eval(node.operand)
        if op == "*":
            found = operator(self, operand, "operator*", [])  # a class's unary `*`
            return found if found is not None else self.deref(operand)
        if op in ("++", "--", "post++", "post--"):  # the operand evaluated once, as gdb
            return self.increment(operand, op)
        value = self.rvalue(operand)
        if is_struct(value.type):  # gdb's unop_user_defined_p: a class's operator or none
            found = operator(self, value, f"operator{op}", [])
            if found is not None:
                return found
            raise EvaluationError(f"Structure has no component named operator{op}.")
        if op == "!":
            return self.truth(not self.is_true(value))
        if not is_arith(value.type):
            raise EvaluationError(_NOT_A_NUMBER[op])
        if decimal_ops.is_decimal(value.type):
            if op == "~":
                raise EvaluationError("Argument to complement operation not an integer, boolean.")
            return decimal_ops.negate(value) if op == "-" else value
        t = unary_promote(value.type, self.builtins)
        number = to_number(value)
        if op == "-":  # gdb's value_neg of a float is 0 - x: never -0, a NaN keeps its sign
            return make(t, 0.0 - number if isinstance(number, float) else -number, self.ctx)
        if op == "+":
            return make(t, number, self.ctx)
        if is_floating(t) or isinstance(number, float):
            raise EvaluationError("Argument to complement operation not an integer, boolean.")
        return make(t, ~number, self.ctx)

    def deref(self, value: Value) -> Value:
        value = in_target(self, value)
        t = strip(value.type)
        if isinstance(t, ReferenceType):
            return self.deref(self.target(value))
        if isinstance(t, ArrayType):
            return value.element(0)
        if isinstance(t, FunctionType):
            return value
        if isinstance(t, PointerType):
            if self.type_only and not _is_dynamic(t.target):  # gdb: `whatis *vp` is void
                return self.zero(t.target)
            if isinstance(strip(t.target), VoidType):
                raise EvaluationError("Attempt to dereference a generic pointer.")
            return value.pointer_target()
        if is_arith(t) and not is_floating(t):  # gdb reads an int at an integer address
            if self.type_only:
                return self.zero(self.builtins.of("int"))
            address = value.as_int() & ((1 << 64) - 1)
            return Value(self.builtins.of("int"), MemoryLoc(address), self.ctx)
        raise EvaluationError("Attempt to take contents of a non-pointer value.")

    def address_of_name(self, name: str, value: Value) -> Value:
        """`&x`: gdb names the variable when it is in a register or in no place at all."""
        if isinstance(strip(value.type), ReferenceType):
            return self.address_of(value)
        if self.type_only:  # gdb's whatis &x: the pointer type wherever x lives, but a constant's
            if isinstance(self.symbols, KnowsConstants) and self.symbols.is_constant(name):
                raise EvaluationError("Attempt to take address of register or constant.")
            return self.zero(PointerType(value.type), in_memory=False)
        location = value.location
        if isinstance(location, MemoryLoc):
            return self.address_of(value)
        shown = name[2:] if name.startswith("::") else name
        if isinstance(location, RegisterLoc):
            register = register_name(location.regno)
            raise EvaluationError(
                f'Address requested for identifier "{shown}" which is in register ${register}')
        raise EvaluationError(f'Can\'t take address of "{shown}" which isn\'t an lvalue.')

    def address_of(self, value: Value) -> Value:
        if isinstance(strip(value.type), ReferenceType):
            value = self.target(value)
        value = in_target(self, value)
        if not isinstance(value.location, MemoryLoc):
            raise EvaluationError("Attempt to take address of value not located in memory.")
        if self.type_only:
            return self.zero(PointerType(value.type), in_memory=False)
        address = value.location.address
        if value.bit_size:  # gdb: the bitfield's container, a whole unit of its type
            unit = 8 * max(strip(value.type).size, 1)
            bits = 8 * address + value.bit_offset
            address = (bits - bits % unit) // 8
        return Value.of_int(PointerType(value.type), address, self.ctx)

    def index(self, base: Value, index: Value) -> Value:
        bt = strip(base.type)
        if isinstance(bt, ReferenceType):
            return self.index(self.target(base), index)
        no_class_operator("[]", bt, index.type)
        if not isinstance(bt, (ArrayType, PointerType)):  # gdb has no `2[arr]`
            name = bt.name if isinstance(bt, BaseType) else bt.tag if isinstance(bt, (StructType, EnumType)) else None
            raise EvaluationError(f"cannot subscript something of type `{name}'" if name else "cannot subscript requested type")
        if self.type_only and isinstance(bt, (ArrayType, PointerType)):  # gdb reads neither
            element = bt.element if isinstance(bt, ArrayType) else bt.target
            in_memory = isinstance(bt, PointerType) or isinstance(base.location, MemoryLoc)
            return self.zero(element, in_memory=in_memory)
        i = self.as_long(index)
        if isinstance(bt, ArrayType):
            if isinstance(base.location, MemoryLoc):
                element = bt.element
                address = base.location.address + i * element.size
                return Value(element, MemoryLoc(address), self.ctx)
            if bt.count is not None and not 0 <= i < bt.count:
                raise EvaluationError("no such vector element")
            return base.element(i)
        return self.deref(self.pointer_add(base, i))

    def as_long(self, value: Value) -> int:
        """gdb's value_as_long: a number (a float truncated) or a pointer's address."""
        value = self.rvalue(value)
        if not isinstance(strip(value.type), (BaseType, PointerType)) and not is_arith(value.type):
            raise EvaluationError("Value can't be converted to integer.")
        if decimal_ops.is_decimal(value.type):
            return int(decimal_ops.number(value))
        return int(to_number(value))

    def member(self, base: Value, name: str, arrow: bool = False) -> Value:
        t = strip(base.type)
        for _ in range(8):  # gdb accepts `p.x` for `p->x`, and `pp->x` through every pointer
            if not isinstance(t, (PointerType, ReferenceType)):
                break
            base = base.pointer_target()  # read even for the type alone, as gdb's `->`
            t = strip(base.type)
        if not isinstance(t, StructType):  # gdb names the operator used
            raise EvaluationError(
                "Attempt to extract a component of a value that is not a structure" + (" pointer." if arrow else ".")
            )
        if "::" in name and t.cplus:  # `n.Shape::id`: the member of that base (or class) itself
            return self._qualified_member(base, name)
        found = base.find_member(name)
        if found is None and t.cplus and t.methods is not None and len(t.methods(name)) == 1:
            # `obj.method` uncalled: the method, as gdb's `{void (Sink * const)} 0x... <Sink::flush()>`
            method = self.symbols.lookup(f"{type_name(t)}::{name}")  # (virtual too: bound to obj)
            if method is not None:
                return method
        if found is None:
            what = "member or method" if t.cplus else "member"  # gdb's words in C++ / C
            raise EvaluationError(f"There is no {what} named {name}.")
        return found

    def _qualified_member(self, base: Value, name: str) -> Value:
        """gdb's value_struct_elt_for_reference of `obj.Class::field`: the field of the
        object's subobject of that class (the class itself or a base)."""
        owner_name, _, field = name.rpartition("::")
        owner = self.symbols.lookup_type(owner_name)
        target = strip(owner) if owner is not None else None
        if not isinstance(target, StructType) or not (same_class(target, base.type) or is_base_of(target, base.type)):
            raise EvaluationError(f"There is no member named {name}.")
        part = base if same_class(target, base.type) else upcast(base, target)
        found = part.find_member(field)
        if found is None:
            raise EvaluationError(f"There is no field named {field}")
        return found

    def pointer_add(self, pointer: Value, count: int) -> Value:
        t = strip(pointer.type)
        assert isinstance(t, PointerType)
        target = strip(t.target)
        size = 1 if isinstance(target, (VoidType, FunctionType)) else target.size
        if is_synthetic(pointer):  # within the object it points to, as gdb's
            return moved(pointer, count * size)
        return Value.of_int(pointer.type, pointer.as_int() + count * size, self.ctx)

    def binary(self, node: ast.Binary) -> Value:
        op = node.op
        if op in ("&&", "||"):
            first = self.eval(node.left)
            no_class_operator(op, first.type, self.right_type(node.right))
            left = self.is_true(first)
            if op == "&&" and not left:
                return self.truth(False)
            if op == "||" and left:
                return self.truth(True)
            return self.truth(self.is_true(self.eval(node.right)))
        return self.arith(op, self.eval(node.left), self.eval(node.right))

    def arith(self, op: str, left: Value, right: Value) -> Value:
        return operators.arith(self, op, left, right)

    def increment(self, operand: Value, op: str) -> Value:
        """`++x` (x itself after the write) and `x++` (x's old value, not an lvalue, as gdb's
        value_non_lval): x is written either way, except for the type alone."""
        one = Value.of_int(self.builtins.of("int"), 1, self.ctx)
        no_class_operator(op.removeprefix("post"), operand.type, one.type)
        kind = strip(operand.type)
        kind = strip(kind.target) if isinstance(kind, ReferenceType) else kind
        if not is_arith(kind) and not isinstance(kind, (PointerType, ArrayType, FunctionType)):  # gdb's value_one
            raise EvaluationError("Not a numeric type.")
        if not op.startswith("post"):
            return self.store(operand, op[0] + "=", one)
        if isinstance(strip(operand.type), ReferenceType):
            operand = self.target(operand)
        if self.type_only:
            return operand
        data = operand.data()
        old = Value(operand.type, ImplicitLoc(data), self.ctx, operand.bit_offset, operand.bit_size, _data=data)
        self.store(operand, op[4] + "=", one)
        return old

    def assign(self, node: ast.Assign) -> Value:
        target = self.eval(node.target)
        if node.op == "=" and not isinstance(target, ConvenienceValue):  # as gdb, not for $var
            return self.store(target, node.op, self.eval_for(node.value, target.type))
        return self.store(target, node.op, self.eval(node.value))

    def eval_for(self, node: ast.Expr, expect: Type) -> Value:
        """`node` where a value of type `expect` is wanted (gdb's expect_type): a brace
        list then makes that struct or array."""
        made = None
        if isinstance(node, ast.ArrayLit):
            made = typed_literal(self, node, expect)
        elif isinstance(node, ast.StringLit):
            made = typed_string(self, node, expect)
        return made if made is not None else self.eval(node)

    def store(self, target: Value, op: str, value: Value) -> Value:
        """`target op value` for = += -= ...: written through target's location."""
        return operators.store(self, target, op, value)


def alignment(t: Type, depth: int = 0) -> int:
    """gdb's type_align on x86-64: a scalar's size, an array's element's, the largest of
    a struct's fields' (1 without any); gdb's error where that is no power of two."""
    s = strip(t)
    if isinstance(s, ArrayType):
        return alignment(s.element, depth + 1)
    if isinstance(s, StructType) and depth < 16:
        found = max((alignment(member.type, depth + 1) for member in s.members), default=1)
    elif isinstance(s, (VoidType, FunctionType)):
        found = 1
    else:
        found = s.size
    if found <= 0 or found & (found - 1):
        raise EvaluationError("could not determine alignment of type")
    return found


# gdb's words for a unary operator's operand that is no number.
_NOT_A_NUMBER = {
    "-": "Argument to negate operation not a number.",
    "+": "Argument to positive operation not a number.",
    "~": "Argument to complement operation not an integer, boolean.",
}


def _is_dynamic(t: Type, depth: int = 0) -> bool:
    """gdb's is_dynamic_type for C: an array of unknown size, or a struct or union holding
    one (a flexible array member). gdb reads the pointer to such a type even for whatis."""
    s = strip(t)
    if isinstance(s, ArrayType):
        return s.count is None or _is_dynamic(s.element, depth)
    if isinstance(s, StructType) and depth < 8:
        return any(_is_dynamic(m.type, depth + 1) for m in s.members)
    return False


def register_name(regno: int) -> str:
    """gdb's name of a DWARF register (x86-64 psABI numbering)."""
    if 17 <= regno <= 32:
        return f"xmm{regno - 17}"
    if 33 <= regno <= 40:
        return f"st{regno - 33}"
    return DWARF_REGISTERS.get(regno, str(regno))


def _virtual_slot(cls: StructType, member: str) -> int | None:
    """The vtable slot of the class's virtual member function `member`; None: none."""
    declared = cls.member_functions() if cls.member_functions is not None else []
    return next((m.virtual_slot for m in declared
                 if m.name == member and m.virtual_slot is not None and m.virtual_slot >= 0), None)  # fmt: skip
