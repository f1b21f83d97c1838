"""Values formatted the way gdb prints them, and their children for UI trees (paged)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from aliceserver.debuggers.symbols.dwarf.literals import (
    binary_text,
    char_literal,
    format_enum,
    format_float,
    format_short_float,
    string_literal,
    wide_escape,
    wide_prefix,
)
from aliceserver.debuggers.symbols.dwarf.locexpr import (
    IMPLICIT_POINTER,
    NOT_SAVED,
    EvaluationError,
    MemoryLoc,
    OptimizedOut,
)
from aliceserver.debuggers.symbols.dwarf.rust_types import is_rust
from aliceserver.debuggers.symbols.dwarf.types import (
    NODEBUG_DATA,
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    FunctionType,
    InternalFunctionType,
    MemberPointerType,
    NodebugDataType,
    PointerType,
    QualifiedType,
    ReferenceType,
    StaticMember,
    StructType,
    Type,
    VoidType,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import (
    MASK64,
    FrameContext,
    OptimizedOutError,
    Value,
    child_count,
    children,
    is_char_type,
    read,
    static_value,
)
from aliceserver.debuggers.symbols.dwarf.x86_registers import FlagsType

log = logging.getLogger(__name__)

__all__ = [
    "FormatOptions",
    "child_count",  # children live in values.py; re-exported for UI code
    "children",
    "format_value",
]

INT_FORMATS = frozenset("xduotcaz")

# A pretty-printer hook (debuggers/printers): the value's text at `depth`, or None to print
# it as usual; children it shows go through `child`, so they are formatted (and printed by
# their own printers) the same way.
PrettyHook = Callable[["Value", int, "FormatOptions", Callable[["Value", int], str]], "str | None"]


class PrintAborted(Exception):
    """A child's memory cannot be read where gdb fetches it (a printer's child, before it
    prints): the print stops there. `partial` is what was printed before it, each value on
    the way out adding its own start. The nearest value printed without a printer shows
    that with `<error reading variable: ...>` in place of its rest (gdb's do_val_print);
    with none, the whole print fails (a printer's own value at the top)."""

    def __init__(self, message: str, partial: str = "") -> None:
        super().__init__(message)
        self.partial = partial

    def after(self, text: str) -> PrintAborted:
        """The same error with `text` printed before what it holds."""
        self.partial = text + self.partial
        return self


class Symbolize(Protocol):
    """Runtime address -> `main+4`: print names (demangled), or with `demangle` False the
    linkage names gdb's /a shows (`asm-demangle off`: `calls.0` where print says `calls`)."""

    def __call__(self, address: int, demangle: bool = True) -> str | None: ...


@dataclass(frozen=True, slots=True)
class FormatOptions:
    fmt: str | None = None  # gdb's /x /d /u /o /t /c /a /z
    top_level: bool = False  # `print`: `(int *) 0x...` and `(int &) @0x...: 5`
    max_elements: int = 200  # gdb's `print elements`
    repeat_threshold: int = 10  # gdb's `print repeats`
    addresses: bool = True  # gdb's `print address`: off names a pointer by its <symbol> alone
    array_indexes: bool = False  # gdb's `print array-indexes`: `{[0] = 1, [1] = 2}`
    output_format: str | None = None  # gdb's `output-radix` 16 or 8 ("x", "o"): integers' default
    nibbles: str = ""  # gdb's `print nibbles` on: /t's digit separator (the language's), else ""
    symbols: bool = True  # gdb's `print symbol`: off, a data pointer shows no <symbol>
    null_stop: bool = False  # gdb's `print null-stop`: a char array ends at its first NUL
    ascii: bool = False  # gdb's `set target-charset ASCII`: a string's bytes past 127 in octal
    max_depth: int = 20  # gdb's `print max-depth`: deeper structs, unions, arrays are `{...}`
    static_members: bool = True  # gdb's `print static-members`
    unions: bool = True  # gdb's `print union`: off, a union inside another value is `{...}`
    symbolize: Symbolize | None = None
    pretty: PrettyHook | None = None  # pretty printers (not with fmt "r": raw)
    summary: bool = False  # frame lines: a printer's children as `{...}`
    # Collects, in the order their `{` opens in the text, the class of each struct printed
    # with base classes and then fields (None for any other struct): gdb's `print pretty`
    # heads those fields `members of CLASS:`, which the one-line text does not say.
    classes: list[str | None] | None = None


def format_value(value: Value, options: FormatOptions | None = None) -> str:
    """The value as gdb prints it; errors inside become `<error: ...>`, never exceptions."""
    opts = options or FormatOptions()
    return _Formatter(opts).top(value)


def c_string(ctx: FrameContext, address: int, options: FormatOptions) -> str:
    """The string a char * at `address` shows after its address, as format_value writes it."""
    return _Formatter(options).c_string(ctx, address)


_PREFETCH_LIMIT = 1 << 16
_PAGE = 4096  # the smallest page: a read that ends at a page's end runs into no other mapping


def _prefetch(value: Value) -> None:
    """Read an aggregate in memory at once: its members and elements are sliced from it,
    not read one by one. Where that fails (part unreadable), they are read one by one."""
    if isinstance(value.location, MemoryLoc) and 0 < value.byte_size <= _PREFETCH_LIMIT:
        try:
            value.data()
        except EvaluationError:
            pass


def _plain_char_pointer(t: Type) -> bool:
    """gdb prints a pointer without its `(type *)` only when it is no typedef and points to
    (a qualified) `char`: `unsigned char *` and `signed char *` keep it (c_value_print)."""
    while isinstance(t, QualifiedType):
        t = t.target
    if not isinstance(t, PointerType):
        return False
    target = t.target
    while isinstance(target, QualifiedType):
        target = target.target
    return isinstance(target, BaseType) and target.name == "char"


class _Formatter:
    def __init__(self, opts: FormatOptions) -> None:
        self.opts = opts
        # gdb's deref_ref: a reference shows what it refers to, except below a struct's
        # members (cp_print_value_fields clears it: `{r = @0x7ffe...}`)
        self.deref_refs = True

    def top(self, value: Value) -> str:
        pretty = self.pretty(value, 0)
        if pretty is not None:  # gdb: no `(type *)` before a printer's text
            return pretty
        t = strip(value.type)
        prefix = ""
        if isinstance(value.location, OptimizedOut) and value.location != OptimizedOut(IMPLICIT_POINTER):
            pass  # gdb's value_check_printable: no `(type) `
        elif self.opts.top_level and self.opts.fmt is None and is_rust(value.type):
            if isinstance(t, (PointerType, ReferenceType)):  # gdb's Rust value_print
                prefix = f"({type_name(value.type)}) "
        elif self.opts.top_level and self.opts.fmt is None:
            if (
                isinstance(t, PointerType)
                and not _plain_char_pointer(value.type)
                and wide_prefix(t.target) is None
            ):
                prefix = f"({type_name(value.type)}) "
            elif isinstance(t, ReferenceType):
                prefix = f"({type_name(value.type)}) "
        return prefix + self.value(value, 0, pretty=False)

    def pretty(self, value: Value, depth: int) -> str | None:
        if self.opts.pretty is None or self.opts.fmt == "r":
            return None
        return self.opts.pretty(value, depth, self.opts, self.value)

    def value(self, value: Value, depth: int, pretty: bool = True) -> str:
        if pretty:
            text = self.pretty(value, depth)
            if text is not None:
                return text
        try:
            return self._value(value, depth)
        except PrintAborted as exc:  # gdb's do_val_print: this value's rest is the error
            return f"{exc.partial}<error reading variable: {exc}>"
        except OptimizedOutError:
            if value.location == OptimizedOut(IMPLICIT_POINTER) and isinstance(strip(value.type), PointerType):
                return "<synthetic pointer>"  # gdb's: the object it points to has no address
            return "<not saved>" if value.location == OptimizedOut(NOT_SAVED) else "<optimized out>"
        except EvaluationError as exc:
            return f"<error: {exc}>"

    def _value(self, value: Value, depth: int) -> str:
        t = strip(value.type)
        if is_rust(value.type):
            from aliceserver.debuggers.symbols.dwarf.rust_format import rust_value  # it imports us

            text = rust_value(self, value, depth)
            if text is not None:
                return text
        if isinstance(t, StructType):
            _prefetch(value)
            return self.struct(value, t, depth)
        if isinstance(t, ArrayType):
            _prefetch(value)
            return self.array(value, t, depth)
        if isinstance(t, ReferenceType):
            if depth >= self.opts.max_depth and _aggregate(t.target):  # gdb's do_val_print
                return "{...}"
            at = f"@{value.as_int() & MASK64:#x}" if self.opts.addresses else ""
            if not self.deref_refs:
                return at
            target = value.pointer_target()  # at the reference's depth (generic_val_print_ref)
            return (at + ": " if at else "") + self.value(target, depth)
        if isinstance(t, FunctionType):
            addr = value.address or 0
            if self.opts.fmt in ("x", "d", "u", "o", "t", "z", "f"):  # gdb: a function is 1 byte long
                return self.function_byte(value, addr)
            if self.opts.fmt in ("a", "c"):
                raise EvaluationError("Value can't be converted to integer.")
            return f"{{{type_name(value.type)}}} {self.address(addr, code=True)}"
        if isinstance(t, VoidType):
            return "void"
        if isinstance(t, NodebugDataType):  # gdb's TYPE_CODE_ERROR value (`*&var`): its name
            return NODEBUG_DATA
        if isinstance(t, InternalFunctionType):
            return f"<internal function {t.function}>"
        if isinstance(t, MemberPointerType):
            fmt = self.opts.fmt if self.opts.fmt in INT_FORMATS else None
            from aliceserver.debuggers.symbols.dwarf.memberptr import format_member_pointer

            return format_member_pointer(value, t, self.address, fmt)
        if self.opts.fmt == "f" and _float_sized(t):  # gdb 13: the bits read as a float that long
            return format_float(value.data()[: t.size])
        if self.opts.fmt == "f" and isinstance(t, BaseType) and t.encoding != Encoding.FLOAT:
            return str(value.as_int())  # no float that long: the number alone (a char's too)
        if self.opts.fmt is not None and self.opts.fmt in INT_FORMATS:
            return self.scalar_format(value, t)
        if isinstance(t, PointerType):
            return self.pointer(value, t)
        if isinstance(t, EnumType):
            return format_enum(t, value.as_int())
        if isinstance(t, BaseType):
            return self.base(value, t)
        return f"<unknown type {type_name(value.type)}>"

    # --- scalars --------------------------------------------------------------------
    def base(self, value: Value, t: BaseType) -> str:
        if isinstance(t, FlagsType):  # a register's flags: $eflags, $mxcsr
            return t.describe(value.as_int())
        if t.encoding == Encoding.FLOAT and t.size == 2:  # gdb's half and bfloat16
            return format_short_float(value.data(), bfloat16=t.name == "bfloat16")
        if t.encoding == Encoding.FLOAT:
            return format_float(value.data())
        if t.encoding == Encoding.DECIMAL_FLOAT:
            from aliceserver.debuggers.symbols.dwarf import decfloat  # (with decimal) on use

            if t.size in decfloat.SIZES:
                return decfloat.to_text(decfloat.decode(value.data()), t.size)
        if t.encoding == Encoding.COMPLEX:
            data = value.data()
            half = len(data) // 2
            return f"{format_float(data[:half])} + {format_float(data[half:])}i"
        if self.opts.output_format is not None:  # gdb's output-radix: integers, chars, bools
            return self.scalar_format(value, t, self.opts.output_format)
        number = value.as_int()
        wide = wide_prefix(value.type)
        if wide is not None:
            return f"{number} {wide}{char_literal(number, wide=True)}"
        if t.encoding == Encoding.BOOL:
            return {0: "false", 1: "true"}.get(number, str(number))
        if t.is_char or (t.encoding == Encoding.UTF):
            return f"{number} {char_literal(number & 0xFF if t.size == 1 else number)}"
        return str(number)

    def scalar_format(self, value: Value, t: Type, fmt: str | None = None) -> str:
        fmt = fmt or self.opts.fmt
        # gdb: a bitfield shows in its declared type's width; a float as its raw bits.
        bits = (t.size or value.byte_size) * 8
        if isinstance(t, BaseType) and t.encoding == Encoding.FLOAT and fmt in ("c", "a"):
            number = _truncated(value.as_float())  # gdb's value_as_long: the number, not its bits
        elif isinstance(t, BaseType) and t.encoding == Encoding.FLOAT:
            number = int.from_bytes(value.data(), "little")
        else:
            number = value.as_int()
        unsigned = number & ((1 << bits) - 1) if bits else number
        if fmt == "x":
            return f"{unsigned:#x}"
        if fmt == "z":
            return "0x" + format(unsigned, f"0{max(bits // 4, 1)}x")
        if fmt == "o":
            return f"0{unsigned:o}" if unsigned else "0"
        if fmt == "t":
            return binary_text(unsigned, max((bits + 7) // 8, 1), self.opts.nibbles)
        if fmt == "d":
            signed = unsigned - (1 << bits) if bits and unsigned >> (bits - 1) else unsigned
            return str(signed)
        if fmt == "u":
            return str(unsigned)
        if fmt == "c":
            byte = unsigned & 0xFF
            signed = byte - 256 if byte >= 128 else byte
            return f"{signed} {char_literal(byte)}"
        if fmt == "a":  # gdb's /a shows the address whatever `print address` says
            return self.address(unsigned, demangle=False, always=True)
        return str(number)

    def function_byte(self, value: Value, address: int) -> str:
        """print/x of a function: gdb's value of its type, one byte (the code's first), signed."""
        byte = read(value.ctx, address, 1)[0]
        if self.opts.fmt in ("d", "f"):
            return str(byte - 256 if byte >= 128 else byte)
        if self.opts.fmt == "t":
            return binary_text(byte, 1, self.opts.nibbles)
        if self.opts.fmt == "o":
            return f"0{byte:o}" if byte else "0"
        if self.opts.fmt == "u":
            return str(byte)
        return f"0x{byte:02x}" if self.opts.fmt == "z" else f"{byte:#x}"

    def address(self, address: int, demangle: bool = True, *, always: bool = False, code: bool = False) -> str:
        """`always`: /a's address and symbol; `code`: a function's, whose <symbol> shows
        whatever `print symbol` says (gdb's print_function_pointer_address)."""
        shown = always or self.opts.addresses
        text = f"{address & MASK64:#x}" if shown else ""
        named = always or code or self.opts.symbols
        if named and self.opts.symbolize is not None and address:
            sym = self.opts.symbolize(address, demangle)
            if sym:
                text += f" <{sym}>" if shown else f"<{sym}>"
        return text

    def pointer(self, value: Value, t: PointerType) -> str:
        address = value.as_int() & MASK64
        target = strip(t.target)
        text = self.address(address, code=isinstance(target, FunctionType))
        space = " " if text else ""  # no address shown (`print address off`), no blank
        if is_char_type(target) and address:
            return f"{text}{space}{self.c_string(value.ctx, address)}"
        wide = wide_prefix(t.target)
        if wide is not None and address:
            return f"{text}{space}{self.wide_string(value.ctx, address, target.size, wide)}"
        return text

    def wide_string(self, ctx: FrameContext, address: int, size: int, prefix: str) -> str:
        codes: list[int] = []
        while len(codes) <= self.opts.max_elements:
            try:
                code = int.from_bytes(read(ctx, address + len(codes) * size, size), "little")
            except EvaluationError:
                if not codes:
                    return f"<error: Cannot access memory at address {address:#x}>"
                break
            if code == 0:
                break
            codes.append(code)
        truncated = len(codes) > self.opts.max_elements
        text = "".join(wide_escape(c) for c in codes[: self.opts.max_elements])
        return f'{prefix}"{text}"' + ("..." if truncated else "")

    def c_string(self, ctx: FrameContext, address: int) -> str:
        limit = self.opts.max_elements
        data = bytearray()
        paged = True
        while len(data) < limit:
            # What the limit can show and one more (its NUL or not), in one read up to the
            # page's end (where a process's mapping can end); memory mapped otherwise (a
            # stub's board) is read byte by byte from where such a read fails
            at = address + len(data)
            size = min(limit + 1 - len(data), _PAGE - at % _PAGE) if paged else 1
            try:
                part = read(ctx, at, size)
            except EvaluationError:
                if size > 1:
                    paged = False
                    continue
                if not data:
                    return f"<error: Cannot access memory at address {address:#x}>"
                break
            data += part
            if 0 in part:
                break
        end = data.find(0)
        truncated = end < 0 or end > limit
        text = bytes(data[:end] if end >= 0 else data)[:limit]
        out = string_literal(text, self.opts.repeat_threshold, self.opts.ascii)
        return out + ("..." if truncated and len(text) >= limit else "")

    # --- aggregates -------------------------------------------------------------------
    def struct(self, value: Value, t: StructType, depth: int) -> str:
        if depth >= self.opts.max_depth or (depth and t.keyword == "union" and not self.opts.unions):
            return "{...}"
        if t.variants is not None and not t.members:
            return self.variant(value, t, depth)
        if not t.members and t.declaration:
            return "<incomplete type>"
        parts: list[str] = []
        classes = self.opts.classes
        slot = len(classes) if classes is not None else -1
        if classes is not None:
            classes.append(None)  # its place, before those of the structs inside it
        deref_refs = self.deref_refs
        try:
            self._members(value, t, depth, parts)
        finally:
            self.deref_refs = deref_refs
        if classes is not None and 0 < sum(1 for m in t.members if m.is_base) < len(parts):
            classes[slot] = type_name(t)
        if all(m.is_base for m in t.members) and not (t.statics and self.opts.static_members):  # bases only, or nothing
            parts.append("<No data fields>")
        return "{" + ", ".join(parts) + "}"

    def _members(self, value: Value, t: StructType, depth: int, parts: list[str]) -> None:
        for member in t.fields_in_order():
            if isinstance(member, StaticMember):
                if not self.opts.static_members:
                    continue
                label = f"static {member.name} = "
                child = static_value(value, member)
            else:
                label = f"<{member.name}> = " if member.is_base else "" if member.name is None else f"{member.name} = "
                try:
                    child = value.member_value(member)
                except EvaluationError as exc:
                    parts.append(f"{member.name} = <error: {exc}>")
                    continue
                if member.artificial and (member.name or "").startswith("_vptr"):
                    parts.append(label + self.vtable_pointer(child))
                    continue
                self.deref_refs = False
            try:
                parts.append(label + self.value(child, depth + 1))
            except PrintAborted as exc:
                raise exc.after("{" + "".join(f"{part}, " for part in parts) + label) from None

    def vtable_pointer(self, value: Value) -> str:
        """gdb shows a vtable pointer as an address and its symbol, whatever the /FMT."""
        try:
            return self.address(value.as_int())
        except OptimizedOutError:
            return "<optimized out>"
        except EvaluationError as exc:
            return f"<error: {exc}>"

    def variant(self, value: Value, t: StructType, depth: int) -> str:
        """A Rust enum: `Some(3)`, `Rect {w = 3, h = 4}`, `None`."""
        assert t.variants is not None
        part = t.variants
        discr = None
        if part.discriminant is not None:
            discr = value.member_value(part.discriminant).as_int()
        member = part.active(discr)
        if member is None:
            return f"<invalid discriminant {discr}>"
        inner = value.member_value(member)
        fields = strip(member.type)
        name = member.name or "?"
        if not isinstance(fields, StructType) or not fields.members:
            return name
        shown = [m for m in fields.members if not m.artificial]
        if all((m.name or "").startswith("__") for m in shown):  # a tuple variant
            items = ", ".join(self.value(inner.member_value(m), depth + 1) for m in shown)
            return f"{name}({items})"
        return f"{name} {self.struct(inner, fields, depth + 1)}"

    def array(self, value: Value, t: ArrayType, depth: int) -> str:
        if t.count is None:  # a flexible array member: gdb shows it as a pointer to its start
            if value.address is None:
                return "<optimized out>"
            text = self.address(value.address)  # with <symbol+offset>
            if is_char_type(t.element) and self.opts.fmt in (None, "s"):
                return f"{text}{' ' if text else ''}{self.c_string(value.ctx, value.address)}"
            return text
        count = t.count
        if is_char_type(t.element) and self.opts.fmt in (None, "s"):  # /s: a string too
            return self.char_array(value, count)
        wide = wide_prefix(t.element) if self.opts.fmt in (None, "s") else None
        if wide is not None:
            return self.wide_array(value, t, count, wide)
        if depth >= self.opts.max_depth:
            return "{...}"
        elem_size = t.element.size
        limit = self.opts.max_elements
        threshold = self.opts.repeat_threshold
        parts: list[str] = []
        printed = 0
        i = 0
        keys = _element_bytes(value, count, elem_size)
        while i < count:
            if printed >= limit:
                return "{" + ", ".join(parts) + "...}"
            elem = value.element(i)
            run = 1
            if keys is not None:  # runs found on the bytes, no value made for each element
                key: bytes | None = keys[i]
                while i + run < count and keys[i + run] == key:
                    run += 1
            else:
                key = _bytes_or_none(elem)
                if key is not None and elem_size:
                    while i + run < count and _bytes_or_none(value.element(i + run)) == key:
                        run += 1
            label = ""
            if self.opts.array_indexes:  # gdb's maybe_print_array_index, before a run too
                label = f"[{_index_text(i, self.opts.fmt or self.opts.output_format, self.opts.nibbles)}] = "
            try:
                text = label + self.value(elem, depth + 1)
            except PrintAborted as exc:
                raise exc.after("{" + "".join(f"{part}, " for part in parts) + label) from None
            if run > threshold:
                parts.append(f"{text} <repeats {run} times>")
                printed += threshold
                i += run
            else:
                parts.append(text)
                printed += 1
                i += 1
        return "{" + ", ".join(parts) + "}"

    def wide_array(self, value: Value, t: ArrayType, count: int, prefix: str) -> str:
        size = t.element.size
        data = value.data()[: count * size]
        codes = [int.from_bytes(data[i : i + size], "little") for i in range(0, len(data), size)]
        if codes and codes[-1] == 0:
            codes = codes[:-1]
        limit = self.opts.max_elements
        truncated = len(codes) > limit
        codes = codes[:limit]
        if not codes:
            return f'{prefix}""'
        text = "".join(wide_escape(c) for c in codes)
        return f'{prefix}"{text}"' + ("..." if truncated else "")

    def char_array(self, value: Value, count: int) -> str:
        data = value.data()[:count]
        if self.opts.null_stop and b"\0" in data:  # gdb's c_value_print_array: up to the NUL
            data = data[: data.index(b"\0")]
        if data.endswith(b"\0"):  # gdb drops one trailing NUL (the terminator)
            data = data[:-1]
        shown = _limit_by_runs(data, self.opts.max_elements)
        text = string_literal(data[:shown], self.opts.repeat_threshold, self.opts.ascii)
        return text + ("..." if shown < len(data) else "")


def _aggregate(t: Type) -> bool:
    """A struct, union or array that is no string: what print max-depth cuts short."""
    t = strip(t)
    return isinstance(t, StructType) or (isinstance(t, ArrayType) and not is_char_type(t.element))


def _float_sized(t: Type) -> bool:
    """Whether print/f shows `t`'s bits as a float (printcmd.c's float_type_from_length):
    a scalar but a float (a complex too) as long as a float, a double or a long double."""
    if isinstance(t, BaseType) and t.encoding == Encoding.FLOAT:
        return False
    return isinstance(t, (BaseType, EnumType, PointerType)) and t.size in (4, 8, 16)


def _truncated(number: float) -> int:
    """A float as an integer the C way (toward zero); gdb's LONGEST bounds past its range."""
    if number != number:
        return 2**63 - 1
    return int(number) if -(2.0**63) <= number < 2.0**63 else (-(2**63) if number < 0 else 2**63 - 1)


def _index_text(index: int, fmt: str | None, nibbles: str = "") -> str:
    """An array index under `print array-indexes`: gdb prints it as a value of the array's
    8-byte unsigned index type, in the print's format (`p/x`: `[0xa] = ...`)."""
    if fmt in ("x", "a"):
        return f"{index:#x}"
    if fmt == "z":
        return f"0x{index:016x}"
    if fmt == "o":
        return f"0{index:o}" if index else "0"
    if fmt == "t":
        return binary_text(index, 8, nibbles)
    if fmt == "c":
        return f"{index} {char_literal(index & 0xFF)}"
    return str(index)


def _limit_by_runs(data: bytes, limit: int) -> int:
    """How many bytes of `data` gdb prints under `print elements`: whole runs of equal
    bytes, until they add up to the limit (`"/etc/hosts", '\\000' <repeats 245 times>`
    is 255 of a 200 limit: the run that crosses it is kept whole)."""
    taken = 0
    while taken < len(data) and taken < limit:
        run = 1
        while taken + run < len(data) and data[taken + run] == data[taken]:
            run += 1
        taken += run
    return taken


def _element_bytes(value: Value, count: int, size: int) -> list[bytes] | None:
    """Each element's bytes of an array whose bytes can be had at once (as _prefetch
    reads them), else None (too large, partly unreadable or optimized out)."""
    if not size or count * size > _PREFETCH_LIMIT or value.bit_size:
        return None
    try:
        data = value.data()
    except EvaluationError:
        return None
    if len(data) < count * size:
        return None
    return [data[i : i + size] for i in range(0, count * size, size)]


def _bytes_or_none(value: Value) -> bytes | None:
    try:
        return value.data()
    except EvaluationError:
        return None
