"""Evaluating expressions with gdb's Rust semantics (rust-lang.c, eval.c): Rust's literal
types, comparisons giving `bool`, arithmetic promoted as gdb does for languages other than
C (`long`, `unsigned long`, `double`), `!` as complement on integers, tuple fields,
fields of the active enum variant, slices and `&str` indexed through `data_ptr` with
gdb's bounds checks, assignments giving `()`, and gdb's Rust error messages."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.expr import ast, rust_literals
from aliceserver.debuggers.symbols.dwarf.expr.convert import (
    Builtins,
    is_arith,
    is_floating,
    is_unsigned,
    make,
    to_number,
)
from aliceserver.debuggers.symbols.dwarf.expr.evalsymbols import EvalSymbols, minimal_function
from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator
from aliceserver.debuggers.symbols.dwarf.expr.operators import COMPARE, apply, compare
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.rust_types import is_slice, is_tuple, is_tuple_struct
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    FunctionType,
    PointerType,
    ReferenceType,
    StructType,
    Type,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import Value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.calls import FunctionCaller

_RUST_TYPES: dict[str, tuple[int, Encoding]] = {
    "bool": (1, Encoding.BOOL), "char": (4, Encoding.UTF), "()": (0, Encoding.UNSIGNED),
    "i8": (1, Encoding.SIGNED), "u8": (1, Encoding.UNSIGNED),
    "i16": (2, Encoding.SIGNED), "u16": (2, Encoding.UNSIGNED),
    "i32": (4, Encoding.SIGNED), "u32": (4, Encoding.UNSIGNED),
    "i64": (8, Encoding.SIGNED), "u64": (8, Encoding.UNSIGNED),
    "i128": (16, Encoding.SIGNED), "u128": (16, Encoding.UNSIGNED),
    "isize": (8, Encoding.SIGNED), "usize": (8, Encoding.UNSIGNED),
    "f32": (4, Encoding.FLOAT), "f64": (8, Encoding.FLOAT),
}  # fmt: skip


class RustBuiltins(Builtins):
    """Rust's primitive types; C's (`long`, `double`, `int`) stay for gdb's results."""

    def get(self, name: str) -> Type | None:
        spec = _RUST_TYPES.get(name)
        if spec is None:
            return super().get(name)
        key = "rust " + name
        t = self._types.get(key)
        if t is None:
            t = self._types[key] = BaseType(name, spec[0], spec[1])
            t.rust = True
        return t


def _rusty(t: Type) -> Type:
    t.rust = True
    return t


class RustEvaluator(Evaluator):
    def __init__(self, symbols: EvalSymbols, scope: str) -> None:
        super().__init__(symbols)
        self.builtins = RustBuiltins()
        self.scope = scope

    def truth_type(self) -> Type:
        return self.builtins.of("bool")

    def unit(self) -> Value:
        return Value.of_bytes(self.builtins.of("()"), b"", self.ctx)

    def check_names(self, node: ast.Expr) -> None:
        """Unknown names first, as gdb resolves them while parsing (a type's name is known)."""
        stack: list[object] = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, ast.Name):
                try:
                    self.name(item.name)
                except EvaluationError:
                    if self.rust_type(item.name) is None:
                        raise
            elif isinstance(item, tuple):
                stack.extend(item)
            elif hasattr(item, "__dataclass_fields__"):
                stack.extend(getattr(item, f) for f in item.__dataclass_fields__)

    def _name(self, name: str) -> Value:
        """gdb's Rust lookup: a bare name in the frame's blocks, then in the function's
        module (`letters` is `rust_calls::letters` before any C library's `letters`);
        here a global of that name after those, then an ELF symbol."""
        value = None
        if "::" not in name and self.scope:
            local = getattr(self.symbols, "lookup_local", None)
            value = local(name) if local is not None else None
            if value is None:
                value = self.symbols.lookup(f"{self.scope}::{name}")  # gdb: the block's scope
        if value is None:
            value = self.symbols.lookup(name)
        if value is None:
            value = minimal_function(self.symbols, name)
        if value is None:
            raise EvaluationError(f"No symbol '{name}' in current context")
        return value

    def rust_type(self, name: str) -> Type | None:
        """gdb's rust_lookup_type: a primitive, else a bare name in the frame's module
        (`Point` is `rcall::Point`), else the name as written."""
        found = self.builtins.get(name)
        if found is None and "::" not in name and self.scope:
            found = self.symbols.lookup_type(f"{self.scope}::{name}")
        return found if found is not None else self.symbols.lookup_type(name)

    def type_named(self, node: ast.Expr) -> Type | None:
        """The type a name stands for where no value of that name is (gdb's name_to_operation:
        a variable, else a type)."""
        if not isinstance(node, ast.Name):
            return None
        try:
            self.name(node.name)
        except EvaluationError:
            return self.rust_type(node.name)
        return None

    def resolve_type(self, tname: ast.TypeName) -> Type:
        t = self.rust_type(tname.base)
        if t is None:
            raise EvaluationError(f"No type named {tname.base}.")
        for _ in range(tname.pointers):
            t = _rusty(PointerType(t))
        for count in reversed(tname.array):
            t = _rusty(ArrayType(t, count))
        return t

    def eval(self, node: ast.Expr) -> Value:
        if isinstance(node, ast.IntLit) and node.type_name == "()":
            return self.unit()
        if isinstance(node, ast.StringLit):
            return self.string_literal(node)
        if isinstance(node, ast.ArrayLit):
            return rust_literals.array(self, [self.eval(element) for element in node.elements])
        if isinstance(node, ast.ArrayRepeat):
            return rust_literals.array(self, [self.eval(node.value)] * node.count)
        if isinstance(node, ast.StructLit):
            t = self.struct_type(node.path)
            caller = self.needs_program()
            made = rust_literals.struct(self, t, [(name, self.eval(value)) for name, value in node.fields],
                                        None if node.base is None else self.eval(node.base))  # fmt: skip
            return self.placed(caller, made)
        if isinstance(node, ast.Call) and (named := self.type_named(node.function)) is not None:
            caller = self.needs_program()  # Meters(2.0)
            return self.placed(caller, rust_literals.tuple_struct(self, named, [self.eval(a) for a in node.args]))
        if isinstance(node, ast.TupleField):
            return self.tuple_field(self.eval(node.base), node.index)
        if isinstance(node, ast.Assign):
            self.assign(node)
            return self.unit()  # gdb's Rust assignment is an expression of type ()
        if isinstance(node, ast.Range):
            self.needs_program()  # (gdb builds it in the program's memory)
            return rust_literals.range_value(self, None if node.low is None else self.eval(node.low),
                                             None if node.high is None else self.eval(node.high), node.inclusive)
        if isinstance(node, ast.Index):  # no operator overloading: Vec is not indexed
            index = self.eval(node.index)
            if rust_literals.is_range(index):
                raise EvaluationError("Can't take slice of array without '&'")
            return self.index(self.eval(node.base), index)
        if isinstance(node, ast.Call) and isinstance(node.function, ast.Member):
            return self.method_call(node.function, node.args)
        if isinstance(node, ast.Unary) and node.op == "sizeof" and (named := self.type_named(node.operand)):
            return self.sizeof(named)  # sizeof(Point)
        if isinstance(node, ast.Name) and (named := self.type_named(node)) is not None:
            if not self.type_only:  # ptype Point, whatis rcall::Point
                raise EvaluationError("Attempt to use a type name as an expression")
            return self.zero(named)
        return super().eval(node)

    def string_literal(self, node: ast.StringLit) -> Value:
        """`"text"` is a `&str` of text copied into the program (gdb's: needs a live
        program); `b"text"` an array of its bytes."""
        if node.char_type == "u8":
            return rust_literals.byte_string(self, node.value)
        text_type = self.symbols.lookup_type("&str")
        if text_type is None:
            raise EvaluationError("Could not find type '&str'")
        if self.type_only:
            return self.zero(text_type)
        caller = self.needs_program()
        assert caller is not None  # (not type_only: returned above)
        address = caller.allocate(node.value)
        return Value.of_bytes(text_type, address.to_bytes(8, "little") + len(node.value).to_bytes(8, "little"),
                              self.ctx)  # fmt: skip

    def needs_program(self) -> FunctionCaller | None:
        """What copies a value into the program, where gdb builds a literal (a `&str`'s
        text, a struct): without a live program, gdb's error (whatis and ptype need none:
        None then)."""
        from aliceserver.debuggers.symbols.dwarf.expr.calls import caller_of

        caller = caller_of(self.symbols)
        if caller is None and not self.type_only:
            raise EvaluationError("evaluation of this expression requires the target program to be active")
        return caller

    def placed(self, caller: FunctionCaller | None, made: Value) -> Value:
        """A literal struct in the program's memory, as gdb builds it (`&Point { .. }`
        is an address there)."""
        if caller is None or self.type_only:
            return made
        return Value(made.type, MemoryLoc(caller.allocate(made.data())), self.ctx)

    def struct_type(self, path: str) -> StructType:
        found = self.rust_type(path)
        t = strip(found) if found is not None else None
        if not isinstance(t, StructType):
            raise EvaluationError(f"No type named {path}.") if t is None else EvaluationError(
                f"{path} is not a struct type")  # fmt: skip
        return t

    def method_call(self, function: ast.Member, args: tuple[ast.Expr, ...]) -> Value:
        """`x.m(..)` as gdb's rust_structop: the function `<x's type>::m` called with `x`
        first, by address where its first parameter is a pointer (`&self`); gdb's words
        when there is none."""
        obj = self.eval(function.base)
        while isinstance(strip(obj.type), PointerType):  # gdb: no real Deref, pointers only
            obj = self.deref(obj)
        t = strip(obj.type)
        if not isinstance(t, (StructType, EnumType)) or (isinstance(t, StructType) and is_tuple(t)):
            raise EvaluationError("Method calls only supported on struct or enum types")
        tname = type_name(obj.type)
        if not tname:
            raise EvaluationError("Method call on nameless type")
        name = f"{tname}::{function.name}"
        try:
            found = self.symbols.lookup(name)
        except EvaluationError:
            found = None
        if found is None:
            raise EvaluationError(f"Could not find function named '{name}'")
        ftype = strip(found.type)
        if not isinstance(ftype, FunctionType) or not isinstance(found.location, MemoryLoc):
            raise EvaluationError(f"Could not find function named '{name}'")
        if not ftype.params:
            raise EvaluationError("Method takes no arguments")
        this = self.address_of(obj) if isinstance(strip(ftype.params[0]), PointerType | ReferenceType) else obj
        return self.call_rust(name, found.location.address, ftype, [this, *(self.eval(a) for a in args)])

    def call_rust(self, name: str, address: int, ftype: FunctionType, values: list[Value]) -> Value:
        from aliceserver.debuggers.symbols.dwarf.expr import rust_calls
        from aliceserver.debuggers.symbols.dwarf.expr.calls import NO_PROCESS, caller_of

        if self.type_only:
            return self.zero(ftype.return_type, in_memory=False)
        caller = caller_of(self.symbols)
        if caller is None:
            raise EvaluationError(NO_PROCESS)
        return rust_calls.call(self, caller, name, address, ftype, values)

    def register(self, name: str) -> Value:
        value = super().register(name)
        t = value.type
        while isinstance(t, (PointerType, FunctionType)):
            t.rust = True
            t = t.target if isinstance(t, PointerType) else t.return_type
        return value

    # --- operators ---------------------------------------------------------------------
    def unary(self, node: ast.Unary) -> Value:
        if node.op == "&":
            if self.type_named(node.operand) is not None:  # (gdb: the type's zero value)
                raise EvaluationError("Attempt to take address of value not located in memory.")
            if isinstance(node.operand, ast.Index) and rust_literals.is_range(index := self.eval(node.operand.index)):
                return self.sliced(self.eval(node.operand.base), index)  # &a[1..3]
            pointer = self.address_of(self.eval(node.operand))
            return pointer.with_type(_rusty(pointer.type))
        if node.op == "*":  # no operator overloading (Deref) in gdb's Rust
            return self.deref(self.eval(node.operand))
        if node.op == "-":  # gdb's unop_promote: to C's int below its size, else the operand's
            value = self.rvalue(self.eval(node.operand))  # type (`-1` is an i32, `-1i8` an int)
            if is_arith(value.type) and strip(value.type).rust and (is_floating(value.type) or strip(value.type).size >= 4):
                return make(value.type, -to_number(value), self.ctx)
            return super().unary(node)
        if node.op == "!":
            value = self.rvalue(self.eval(node.operand))
            t = strip(value.type)
            if isinstance(t, BaseType) and t.encoding == Encoding.BOOL:
                return self.truth(not value.as_int())
            if not is_arith(t) or is_floating(t):
                raise EvaluationError("Argument to complement operation not an integer, boolean.")
            return make(value.type, ~value.as_int(), self.ctx)  # Rust's `!`: same type
        return super().unary(node)

    def arith(self, op: str, left: Value, right: Value) -> Value:
        left, right = self.rvalue(left), self.rvalue(right)
        lt, rt = strip(left.type), strip(right.type)
        if not (is_arith(lt) and is_arith(rt)):
            return super().arith(op, left, right)  # pointers, and C's errors
        if any(not is_floating(t) and t.size > 8 for t in (lt, rt)):
            raise EvaluationError("That operation is not available on integers of more than 8 bytes.")
        if op in ("<<", ">>") and is_floating(rt):
            raise EvaluationError("Integer only operation.")
        result_t = self.promoted(lt, rt)
        a = to_number(make(result_t, to_number(left), self.ctx))
        b = to_number(right) if op in ("<<", ">>") else to_number(make(result_t, to_number(right), self.ctx))
        if op in COMPARE:
            return self.truth(compare(op, a, b))
        return make(result_t, apply(op, a, b, is_floating(result_t)), self.ctx)

    def promoted(self, a: Type, b: Type) -> Type:
        """gdb's binop_promote outside C: double for floats, else long or unsigned long."""
        if is_floating(a) or is_floating(b):
            sizes = [t.size for t in (a, b) if is_floating(t)]
            return self.builtins.of("long double" if max(sizes) > 8 else "double")
        sa, sb = max(a.size, 4), max(b.size, 4)
        ua = is_unsigned(a) and a.size >= 4
        ub = is_unsigned(b) and b.size >= 4
        unsigned = ua if sa > sb else ub if sb > sa else (ua or ub)
        return self.builtins.of("unsigned long" if unsigned else "long")

    def index(self, base: Value, index: Value) -> Value:
        t = strip(base.type)
        i = to_number(self.rvalue(index))
        if isinstance(i, float):
            raise EvaluationError("Array subscript is not an integer.")
        if isinstance(t, ArrayType):
            high = t.count if t.count is not None else 1 << 62
            element = t.element
            start = base
        elif isinstance(t, StructType) and is_slice(t):
            fields = {m.name: m for m in t.members}
            start = base.member_value(fields["data_ptr"])
            high = base.member_value(fields["length"]).as_int()
            target = strip(start.type)
            if not isinstance(target, PointerType):
                raise EvaluationError("Cannot subscript non-array type")
            element = target.target
        elif isinstance(t, (PointerType, ReferenceType)):
            if isinstance(t, ReferenceType):
                return self.index(base.pointer_target(), index)
            start, high, element = base, 1 << 63, t.target
        else:
            raise EvaluationError("Cannot subscript non-array type")
        if i < 0:
            raise EvaluationError("Index less than zero")
        if i > high:  # gdb's check: one past the end is let through
            raise EvaluationError("Index greater than length")
        if isinstance(strip(start.type), ArrayType):
            if isinstance(start.location, MemoryLoc):
                return Value(element, MemoryLoc(start.location.address + i * element.size), self.ctx)
            return start.element(i)
        return Value(element, MemoryLoc((start.as_int() + i * element.size) & ((1 << 64) - 1)), self.ctx)

    def sliced(self, base: Value, bounds: Value) -> Value:
        """`&base[range]` as gdb's rust_subscript: a slice of an array, a slice or a pointer."""
        t = strip(base.type)
        low, high = rust_literals.range_bounds(bounds)
        if isinstance(t, ArrayType):
            if not isinstance(base.location, MemoryLoc):
                raise EvaluationError("Attempt to take address of value not located in memory.")
            start, length, element, name = base.location.address, t.count or 0, t.element, "&[*gdb*]"
        elif isinstance(t, StructType) and is_slice(t):
            fields = {m.name: m for m in t.members}
            pointer = strip(fields["data_ptr"].type)
            if not isinstance(pointer, PointerType):
                raise EvaluationError("Cannot subscript non-array type")
            start, element = base.member_value(fields["data_ptr"]).as_int(), pointer.target
            length, name = base.member_value(fields["length"]).as_int(), t.tag or "&[*gdb*]"
        elif isinstance(t, PointerType):
            start, length, element, name = base.as_int(), (1 << 63) - 1, t.target, "&[*gdb*]"
        else:
            raise EvaluationError("Cannot subscript non-array type")
        low = 0 if low is None else low
        if low < 0:
            raise EvaluationError("Index less than zero")
        if low > length:
            raise EvaluationError("Index greater than length")
        high = length if high is None else high
        if high < 0:
            raise EvaluationError("High index less than zero")
        if low > high:
            raise EvaluationError("Low index greater than high index")
        if high > length:
            raise EvaluationError("High index greater than length")
        usize = self.builtins.of("usize")
        return rust_literals.slice_value(self, name, element, usize, start + low * element.size, high - low)

    def deref_all(self, value: Value) -> Value:
        for _ in range(64):
            if not isinstance(strip(value.type), (PointerType, ReferenceType)):
                return value
            value = value.pointer_target()
        return value

    def variant(self, value: Value, t: StructType) -> tuple[Value, StructType] | None:
        """The active variant's fields of a Rust enum (None: not an enum)."""
        part = t.variants
        if part is None or t.members:
            return None
        if not part.variants:
            raise EvaluationError(f"Cannot access a field of empty enum {t.tag}")
        discr = None if part.discriminant is None else value.member_value(part.discriminant).as_int()
        member = part.active(discr)
        if member is None:
            raise EvaluationError("Could not find active enum variant")
        fields = strip(member.type)
        if not isinstance(fields, StructType):
            raise EvaluationError("Could not find active enum variant")
        return value.member_value(member), fields

    def member(self, base: Value, name: str, arrow: bool = False) -> Value:
        base = self.deref_all(base)
        t = strip(base.type)
        if isinstance(t, StructType):
            active = self.variant(base, t)
            if active is not None:
                inner, fields = active
                variant = f"{t.tag}::{(fields.tag or '').rpartition('::')[2]}"
                if is_tuple_struct(fields):
                    raise EvaluationError(
                        f"Attempting to access named field {name} of tuple variant {variant}, "
                        "which has only anonymous fields"
                    )
                found = inner.find_member(name)
                if found is None:
                    raise EvaluationError(f"Could not find field {name} of struct variant {variant}")
                return found
            found = base.find_member(name)
            if found is not None:
                return found
            raise EvaluationError(f"There is no member named {name}.")
        raise EvaluationError("Attempt to extract a component of a value that is not a structure.")

    def tuple_field(self, base: Value, index: int) -> Value:
        t = strip(base.type)
        if not isinstance(t, StructType):
            raise EvaluationError(
                "Anonymous field access is only allowed on tuples, tuple structs, and "
                "tuple-like enum variants"
            )
        outer = None
        active = self.variant(base, t)
        if active is not None:
            outer = t
            base, t = active
        count = len(t.members)
        variant = f"{outer.tag}::{(t.tag or '').rpartition('::')[2]}" if outer else ""
        if index >= count:
            what = f"variant {variant}" if outer else f"{t.tag}"
            raise EvaluationError(f"Cannot access field {index} of {what}, there are only {count} fields")
        if not is_tuple_struct(t):
            if outer is not None:
                raise EvaluationError(f"Variant {variant} is not a tuple variant")
            raise EvaluationError(
                f"Attempting to access anonymous field {index} of {t.tag}, which is not a tuple, "
                "tuple struct, or tuple-like variant"
            )
        return base.member_value(t.members[index])
