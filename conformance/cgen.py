"""Seeded generator of C programs for the generated differential tester (generated.py).

`generate(seed)` returns a `Program`: C source text and, for every generated function, the
names worth inspecting when it stops (arguments, locals, its static) and the line of a
statement near its end (`end_line`, where the locals hold their values). The same seed
always gives the same program (one `random.Random(seed)`, no other source of variety).

What is covered: structs, unions, bitfields (signed and unsigned, 1..64 bits, straddling
bytes), enums (small, large, negative, flag-like), arrays of sizes around every DWARF
encoding boundary (a flexible member, 1, 127, 128, 255, 256, 65535, 65536; 2^31 only
behind a pointer type, never allocated), multi-dimensional arrays and pointers to them,
typedef chains, every integer, character and floating type, _Bool, anonymous members,
globals, file statics, function statics and locals; functions without locals, with many,
leaves, varargs, frames over 4 KiB, more than six arguments, structs by value.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

# name, size in bytes, signed (None: not an integer)
_INTEGERS: tuple[tuple[str, int, bool], ...] = (
    ("char", 1, True), ("signed char", 1, True), ("unsigned char", 1, False),
    ("short", 2, True), ("unsigned short", 2, False), ("int", 4, True),
    ("unsigned int", 4, False), ("long", 8, True), ("unsigned long", 8, False),
    ("long long", 8, True), ("unsigned long long", 8, False),
)  # fmt: skip
_FLOATS = ("float", "double", "long double")
_FLOAT_VALUES = ("0.0", "1.5", "-2.25", "0.1", "3.0e10", "-1.0e-5", "123456.789", "1.0e300")
_ARRAY_SIZES = (1, 2, 3, 127, 128, 255, 256)
_GLOBAL_ARRAY_SIZES = (127, 128, 255, 256, 65535, 65536)
_HUGE = 2**31


@dataclass(frozen=True)
class CType:
    """A C type the generator can declare and initialise.

    kind: base, bool, float, enum, struct, union, array, pointer, typedef.
    """

    kind: str
    spelling: str = ""  # base/enum/struct/union/typedef: the type's name as written
    size: int = 0  # integers: bytes
    signed: bool = True
    elem: CType | None = None  # array, pointer, typedef: the element / target type
    count: int = 0  # array: element count (0: flexible member)
    members: tuple[Member, ...] = ()  # struct/union
    enumerators: tuple[tuple[str, int], ...] = ()

    def declare(self, inner: str) -> str:
        """The declaration of `inner` (a name, or empty for a type name) with this type."""
        if self.kind == "array":
            assert self.elem is not None
            size = "" if self.count == 0 else str(self.count)
            return self.elem.declare(f"{inner}[{size}]")
        if self.kind == "pointer":
            assert self.elem is not None
            if self.elem.kind == "array":
                return self.elem.declare(f"(*{inner})")
            return self.elem.declare(f"*{inner}")
        return f"{self.spelling} {inner}".rstrip()

    @property
    def resolved(self) -> CType:
        """The type under any typedefs."""
        current = self
        while current.kind == "typedef":
            assert current.elem is not None
            current = current.elem
        return current

    @property
    def aggregate(self) -> bool:
        return self.resolved.kind in ("struct", "union", "array")

    @property
    def scalar(self) -> bool:
        return self.resolved.kind in ("base", "bool", "float", "enum")


@dataclass(frozen=True)
class Member:
    name: str  # empty: an anonymous struct/union member
    ctype: CType
    bits: int = 0  # a bitfield's width


@dataclass(frozen=True)
class Variable:
    name: str
    ctype: CType


@dataclass(frozen=True)
class Function:
    name: str
    kind: str  # leaf, no-locals, many-locals, varargs, big-frame, many-args, struct-args
    variables: tuple[Variable, ...]  # arguments, locals and its static, in scope at end_line
    end_line: int  # a statement after every local is set


@dataclass(frozen=True)
class Program:
    seed: int
    source: str
    functions: tuple[Function, ...]
    globals: tuple[Variable, ...]  # globals and file statics


@dataclass
class _Generator:
    rng: random.Random
    lines: list[str] = field(default_factory=list)
    counter: int = 0
    structs: list[CType] = field(default_factory=list)
    enums: list[CType] = field(default_factory=list)
    typedefs: list[CType] = field(default_factory=list)
    globals: list[Variable] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, text: str) -> int:
        """Append lines; the 1-based number of the last one."""
        self.lines.extend(text.split("\n"))
        return len(self.lines)

    # --- types ----------------------------------------------------------------------------

    def integer(self) -> CType:
        name, size, signed = self.rng.choice(_INTEGERS)
        return CType("base", name, size, signed)

    def scalar(self) -> CType:
        roll = self.rng.random()
        if roll < 0.55:
            return self.integer()
        if roll < 0.7:
            return CType("float", self.rng.choice(_FLOATS))
        if roll < 0.78:
            return CType("bool", "_Bool", 1, False)
        if roll < 0.9 and self.enums:
            return self.rng.choice(self.enums)
        if self.typedefs:
            return self.rng.choice(self.typedefs)
        return self.integer()

    def make_enum(self) -> None:
        name = self.fresh("e")
        style = self.rng.choice(("small", "large", "negative", "flags"))
        count = self.rng.randint(1, 5)
        if style == "small":
            values = list(range(count))
        elif style == "large":
            values = [self.rng.choice((70000, 2**31 - 1, 2**32 - 1, 2**40, 255, 256)) + i for i in range(count)]
        elif style == "negative":
            values = [self.rng.randint(-(2**31), -1) for _ in range(count)]
        else:
            values = [1 << i for i in range(count)]
        values = list(dict.fromkeys(values))
        enumerators = tuple((f"{name.upper()}_{i}", v) for i, v in enumerate(values))
        body = ", ".join(f"{n} = {v}" for n, v in enumerators)
        self.emit(f"enum {name} {{ {body} }};")
        self.enums.append(CType("enum", f"enum {name}", enumerators=enumerators))

    def make_typedef_chain(self) -> None:
        target = self.rng.choice([self.integer(), *self.structs[-1:], *self.enums[-1:]])
        for _ in range(self.rng.randint(1, 3)):
            name = self.fresh("t")
            self.emit(f"typedef {target.declare(name)};")
            target = CType("typedef", name, elem=target)
        self.typedefs.append(target)

    def member_type(self, depth: int) -> CType:
        roll = self.rng.random()
        if roll < 0.12 and self.structs and depth < 2:
            return self.rng.choice(self.structs)
        if roll < 0.25:
            return CType("array", elem=self.scalar(), count=self.rng.choice((1, 2, 3, 4)))
        if roll < 0.3:
            dims = CType("array", elem=self.integer(), count=self.rng.randint(2, 3))
            return CType("array", elem=dims, count=2)
        if roll < 0.35 and self.structs:
            return CType("pointer", elem=self.rng.choice(self.structs))
        return self.scalar()

    def make_record(self, depth: int = 0, anonymous: bool = False) -> CType:
        """A struct or union definition; anonymous ones are returned for nesting."""
        keyword = "union" if self.rng.random() < 0.25 else "struct"
        name = "" if anonymous else self.fresh("s")
        members: list[Member] = []
        for _ in range(self.rng.randint(1, 6)):
            roll = self.rng.random()
            if roll < 0.3 and keyword == "struct":
                members.extend(self.bitfields())
            elif roll < 0.4 and depth < 2:
                members.append(Member("", self.make_record(depth + 1, anonymous=True)))
            else:
                members.append(Member(self.fresh("m"), self.member_type(depth)))
        if keyword == "struct" and not anonymous and self.rng.random() < 0.15:
            members.append(Member(self.fresh("flex"), CType("array", elem=self.integer(), count=0)))
        body = " ".join(self.member_text(m) for m in members)
        ctype = CType(keyword, f"{keyword} {name}".rstrip(), members=tuple(members))
        if anonymous:
            return CType(keyword, f"{keyword} {{ {body} }}", members=tuple(members))
        self.emit(f"{keyword} {name} {{ {body} }};")
        self.structs.append(ctype)
        return ctype

    def bitfields(self) -> list[Member]:
        out = []
        for _ in range(self.rng.randint(1, 4)):
            wide = self.rng.random() < 0.4
            signed = self.rng.random() < 0.5
            if wide:
                base = CType("base", "long long" if signed else "unsigned long long", 8, signed)
                bits = self.rng.randint(1, 64)
            else:
                base = CType("base", "int" if signed else "unsigned int", 4, signed)
                bits = self.rng.randint(1, 32)
            out.append(Member(self.fresh("b"), base, bits))
        return out

    def member_text(self, member: Member) -> str:
        if not member.name:
            return f"{member.ctype.spelling};"
        width = f" : {member.bits}" if member.bits else ""
        return f"{member.ctype.declare(member.name)}{width};"

    # --- values ---------------------------------------------------------------------------

    def int_value(self, size: int, signed: bool, bits: int = 0) -> int:
        width = bits or size * 8
        low: int = -(2 ** (width - 1)) if signed else 0
        high: int = 2 ** (width - 1) - 1 if signed else 2**width - 1
        roll = self.rng.random()
        if roll < 0.2:
            return self.rng.choice((low, high))
        if roll < 0.5:
            return max(low, min(high, self.rng.randint(-3, 127)))
        return self.rng.randint(low, high)

    def literal(self, value: int, size: int, signed: bool) -> str:
        if value < 0:
            return f"({-value - 1}LL - 1)" if size == 8 and value == -(2**63) else f"({value}LL)"
        return f"{value}ULL" if size == 8 or value > 2**31 - 1 else str(value)

    def init(self, ctype: CType, bits: int = 0) -> str:
        t = ctype.resolved
        if t.kind == "base":
            return self.literal(self.int_value(t.size, t.signed, bits), t.size, t.signed)
        if t.kind == "bool":
            return self.rng.choice(("0", "1"))
        if t.kind == "float":
            return self.rng.choice(_FLOAT_VALUES)
        if t.kind == "enum":
            if self.rng.random() < 0.2:
                return f"({t.spelling}){self.rng.choice((0, 3, 12, -1))}"
            return self.rng.choice(t.enumerators)[0]
        if t.kind == "pointer":
            return "0"
        if t.kind == "array":
            return self.array_init(t)
        named = [m for m in t.members if m.name and not (m.ctype.kind == "array" and m.ctype.count == 0)]
        if t.kind == "union":
            if not named:
                return "{0}"
            chosen = self.rng.choice(named)
            return f"{{ .{chosen.name} = {self.init(chosen.ctype, chosen.bits)} }}"
        parts = [f".{m.name} = {self.init(m.ctype, m.bits)}" for m in named if self.rng.random() < 0.9]
        return "{ " + ", ".join(parts) + " }" if parts else "{0}"

    def array_init(self, t: CType) -> str:
        assert t.elem is not None
        if t.count == 0:
            return "{}"
        if t.count <= 6:
            return "{ " + ", ".join(self.init(t.elem) for _ in range(t.count)) + " }"
        picks = sorted({0, t.count - 1, *(self.rng.randrange(t.count) for _ in range(3))})
        if self.rng.random() < 0.3:  # a run of equal elements: gdb's <repeats N times>
            value = self.init(t.elem)
            return "{ " + ", ".join(f"[{i}] = {value}" for i in picks) + f", [1 ... {min(t.count - 1, 40)}] = {value} }}"
        return "{ " + ", ".join(f"[{i}] = {self.init(t.elem)}" for i in picks) + " }"

    # --- globals --------------------------------------------------------------------------

    def make_global(self) -> None:
        roll = self.rng.random()
        static = "static " if self.rng.random() < 0.3 else ""
        name = self.fresh("s_" if static else "g_")
        if roll < 0.2:
            elem = self.rng.choice([CType("base", "char", 1, True), CType("base", "unsigned char", 1, False), self.scalar()])
            count = self.rng.choice(_GLOBAL_ARRAY_SIZES)
            if count > 256 and elem.resolved.kind != "base":
                elem = CType("base", "unsigned char", 1, False)
            ctype = CType("array", elem=elem, count=count)
        elif roll < 0.3:
            inner = CType("array", elem=self.integer(), count=self.rng.choice((2, 3, 4)))
            ctype = CType("array", elem=CType("array", elem=inner, count=self.rng.choice((1, 2, 3))), count=2)
        elif roll < 0.4:
            count = self.rng.choice((_HUGE, 65536, 256, 128, 1))
            ctype = CType("pointer", elem=CType("array", elem=CType("base", "char", 1, True), count=count))
            target = self.rng.choice(("0", f"({ctype.declare('')})&g_sink"))
            self.emit(f"{static}{ctype.declare(name)} = {target};")
            self.globals.append(Variable(name, ctype))
            return
        elif roll < 0.75 and self.structs:
            ctype = self.rng.choice(self.structs + self.typedefs)
        else:
            ctype = self.scalar()
        self.emit(f"{static}{ctype.declare(name)} = {self.init(ctype)};")
        self.globals.append(Variable(name, ctype))
        if self.rng.random() < 0.3:  # a pointer to it, so pointers hold the program's addresses
            pointer = CType("pointer", elem=ctype)
            pname = self.fresh("p_")
            self.emit(f"{pointer.declare(pname)} = &{name};")
            self.globals.append(Variable(pname, pointer))

    # --- functions ------------------------------------------------------------------------

    def param_type(self) -> CType:
        roll = self.rng.random()
        if roll < 0.2 and self.structs:
            return self.rng.choice(self.structs)
        if roll < 0.3 and self.structs:
            return CType("pointer", elem=self.rng.choice(self.structs))
        return self.scalar()

    def argument(self, ctype: CType) -> str:
        t = ctype.resolved
        if t.kind in ("struct", "union"):
            matching = [g.name for g in self.globals if g.ctype == ctype]
            return matching[0] if matching else f"({ctype.declare('')}){self.init(ctype)}"
        if t.kind == "pointer":
            matching = [g.name for g in self.globals if g.ctype == t.elem]
            return f"&{matching[0]}" if matching else "0"
        return self.init(ctype)

    def use(self, variable: Variable) -> str:
        """A statement that reads the variable, so -O2 keeps something to show."""
        t = variable.ctype.resolved
        if t.kind in ("base", "bool", "float", "enum") and self.rng.random() < 0.6:
            return f"g_sink += (long long){variable.name};"
        if t.kind == "array" and t.count == 0:
            return ""
        return f"g_sink += use_bytes((const volatile void *)&{variable.name}, sizeof {variable.name});"

    def make_function(self, index: int) -> tuple[str, str]:
        """Emit one function; its call from main."""
        kind = self.rng.choice(("leaf", "no-locals", "many-locals", "varargs", "big-frame", "many-args", "struct-args"))
        name = f"f{index}"
        params: list[Variable] = []
        count = {"leaf": 1, "no-locals": 0, "many-args": self.rng.randint(7, 12), "varargs": 1}.get(kind, self.rng.randint(1, 4))
        for _ in range(count):
            ctype = self.param_type()
            if kind in ("varargs", "leaf"):
                ctype = CType("base", "int", 4, True) if kind == "varargs" else self.integer()
            if kind == "struct-args" and self.structs and self.rng.random() < 0.6:
                ctype = self.rng.choice(self.structs)
            params.append(Variable(self.fresh("a"), ctype))
        locals_: list[tuple[Variable, str, str]] = []  # variable, qualifier, initializer
        local_count = {"leaf": 0, "no-locals": 0, "many-locals": self.rng.randint(6, 12)}.get(kind, self.rng.randint(1, 3))
        for _ in range(local_count):
            ctype = self.member_type(0) if self.rng.random() < 0.7 else self.param_type()
            if ctype.resolved.kind == "pointer":
                ctype = self.scalar()
            qualifier = "volatile " if self.rng.random() < 0.4 else ""
            locals_.append((Variable(self.fresh("l"), ctype), qualifier, self.init(ctype)))
        if kind == "big-frame":
            big = CType("array", elem=self.rng.choice((CType("base", "char", 1, True), CType("base", "int", 4, True))), count=self.rng.choice((4100, 5000, 8192)))
            locals_.append((Variable(self.fresh("big"), big), "volatile ", "{ 1, 2, 3 }"))
        signature = ", ".join(p.ctype.declare(p.name) for p in params) or "void"
        if kind == "varargs":
            signature += ", ..."
        static_name = f"{name}_calls"
        self.emit(f"__attribute__((noinline)) {'static ' if self.rng.random() < 0.3 else ''}long long {name}({signature})\n{{")
        variables = list(params)
        if kind not in ("leaf", "no-locals"):
            self.emit(f"    static int {static_name} = {self.rng.randint(-5, 1000)};")
            variables.append(Variable(static_name, CType("base", "int", 4, True)))
        for variable, qualifier, initializer in locals_:
            self.emit(f"    {qualifier}{variable.ctype.declare(variable.name)} = {initializer};")
            variables.append(variable)
        if kind == "varargs":
            self.emit("    va_list ap;\n    long long total = 0;\n    va_start(ap, " + params[0].name + ");")
            self.emit(f"    for (int i = 0; i < {params[0].name}; i++)\n        total += va_arg(ap, int);\n    va_end(ap);")
            variables.append(Variable("total", CType("base", "long long", 8, True)))
        if kind == "leaf":
            end = self.emit(f"    return {params[0].name} * 3 + 1;\n}}\n")
            return name, self.call(name, kind, params)
        if kind == "no-locals":
            end = self.emit("    g_sink++;\n    return 7;\n}\n")
        else:
            self.emit(f"    {static_name}++;")
            for variable in variables:
                statement = self.use(variable)
                if statement:
                    self.emit(f"    {statement}")
            end = self.emit("    g_sink += 1;")
            self.emit(f"    return {static_name}{' + total' if kind == 'varargs' else ''};\n}}\n")
        self.functions.append(Function(name, kind, tuple(variables), end - 2 if kind == "no-locals" else end))
        return name, self.call(name, kind, params)

    def call(self, name: str, kind: str, params: list[Variable]) -> str:
        if kind == "leaf":
            self.functions.append(Function(name, kind, tuple(params), len(self.lines) - 2))
        args = [self.argument(p.ctype) for p in params]
        if kind == "varargs":
            extra = self.rng.randint(0, 6)
            args = [str(extra), *(str(self.rng.randint(-100, 100)) for _ in range(extra))]
        return f"    g_sink += {name}({', '.join(args)});"


_PRELUDE = """\
#include <stdarg.h>
#include <string.h>

volatile long long g_sink;

__attribute__((noinline)) static long long use_bytes(const volatile void *p, unsigned long n)
{
    const volatile unsigned char *b = p;
    long long s = 0;
    for (unsigned long i = 0; i < n; i++)
        s += b[i];
    return s;
}

/* Leaves the stack below main zeroed: locals read before their first store are equal
   under both debuggers (libc's start-up left pointer-guarded values there). */
__attribute__((noinline)) static void scrub_stack(void)
{
    volatile char area[65536];
    memset((char *)area, 0, sizeof area);
    __asm__ volatile("" : : "r"(area) : "memory"); /* so -O2 keeps the memset */
}
"""


def generate(seed: int) -> Program:
    gen = _Generator(random.Random(seed))
    gen.emit(_PRELUDE)
    for _ in range(gen.rng.randint(1, 3)):
        gen.make_enum()
    for _ in range(gen.rng.randint(2, 4)):
        gen.make_record()
        if gen.rng.random() < 0.5:
            gen.make_typedef_chain()
    for _ in range(gen.rng.randint(4, 8)):
        gen.make_global()
    calls = [gen.make_function(i)[1] for i in range(gen.rng.randint(3, 5))]
    gen.emit("int main(void)\n{\n    scrub_stack();")
    for variable in gen.globals:
        if variable.name.startswith("s_"):  # file statics: used, so -O2 keeps them
            gen.emit(f"    g_sink += use_bytes((const volatile void *)&{variable.name}, sizeof {variable.name});")
    gen.emit("\n".join(calls))
    gen.emit("    return 0;\n}")
    return Program(seed, "\n".join(gen.lines) + "\n", tuple(gen.functions), tuple(gen.globals))
