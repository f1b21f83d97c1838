"""Values of a stopped thread for the front ends: frames as DWARF contexts, variables by
scope, children by reference, and expression evaluation.

References handed out (`VariableInfo.reference`) stay valid until the program resumes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Callable, Mapping, cast

from aliceserver.debuggers.model import DynamicTypes, PrinterView, VariableInfo
from aliceserver.debuggers.regsets import REGISTER_NAMES
from aliceserver.debuggers.source.floatregs import DESCRIBED
from aliceserver.debuggers.source.floatregs import FloatRegisters as FloatRegisters  # frames.py's
from aliceserver.debuggers.source.pointermemo import PointerDescriptions, pointer_key
from aliceserver.debuggers.source.samevalues import same_value_writer
from aliceserver.debuggers.source.scalarmemo import ScalarDescriptions, scalar_key
from aliceserver.debuggers.symbols.dwarf import aarch64_registers, x86_registers
from aliceserver.debuggers.symbols.dwarf.access import class_children, cplus_class
from aliceserver.debuggers.symbols.dwarf.callsites import CallerFrame
from aliceserver.debuggers.symbols.dwarf.dynamic import Rtti, dynamic_value
from aliceserver.debuggers.symbols.dwarf.format import FormatOptions, Symbolize, format_value
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc, OptimizedOut
from aliceserver.debuggers.symbols.dwarf.physname import function_alias
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    NodebugFunctionType,
    PointerType,
    ReferenceType,
    StructType,
    Type,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.unwind import DWARF_REGISTERS, UnwoundFrame
from aliceserver.debuggers.symbols.dwarf.values import Value, child_count, children, is_rust_enum
from aliceserver.debuggers.symbols.dwarf.variable import is_constant
from aliceserver.errors import ProtocolError, TargetError

if TYPE_CHECKING:
    from elftools.dwarf.compileunit import CompileUnit
    from elftools.dwarf.die import DIE

    from aliceserver.debuggers.printers.children import Child
    from aliceserver.debuggers.printers.host import PrinterHost

    # The expression evaluator is imported when first used: its modules cost a start-up
    # that stops at a breakpoint and shows a frame about 30 ms and are not needed for it.
    from aliceserver.debuggers.symbols.dwarf.expr import FrameSymbols
    from aliceserver.debuggers.symbols.dwarf.expr.ast import Expr
    from aliceserver.debuggers.symbols.dwarf.expr.calls import FunctionCaller
    from aliceserver.debuggers.symbols.dwarf.expr.dollars import SessionValues
    from aliceserver.debuggers.symbols.dwarf.expr.evalsymbols import EvalSymbols
    from aliceserver.debuggers.symbols.dwarf.expr.methods import Methods

_MAX_REFERENCE = (1 << 31) - 1
_MAX_TYPE_NAMES = 4096  # type names kept; all are dropped when there are more
@dataclass(slots=True)
class FrameView:
    """One unwound frame as the DWARF layer's FrameContext."""

    frame: UnwoundFrame
    bias: int
    read: Callable[[int, int], bytes]
    write: Callable[[int, bytes], None]
    set_register: Callable[[str, int], None] | None  # frame 0 only: registers of the thread
    inline_outer: int = 0  # an inline frame: how many inlined calls out from the innermost
    caller: Callable[[], CallerFrame | None] | None = None  # entry values (callsites.py)
    floats: FloatRegisters | None = None  # the thread's xmm and st registers, read lazily
    # An outer frame: frame 0 of its thread, where gdb reads the registers it did not save.
    innermost_view: Callable[[], FrameView] | None = None
    spans: list[tuple[int, int]] | None = None  # where the location lists read stay (keptsteps.py)

    @property
    def pc(self) -> int:
        return self.frame.pc

    @property
    def location_pc(self) -> int:
        """Where location lists are looked up: a caller's pc - 1, inside its call."""
        frame = self.frame
        return frame.pc if frame.level == 0 or frame.method == "signal" else frame.pc - 1

    def caller_frame(self) -> CallerFrame | None:
        return None if self.caller is None else self.caller()

    @property
    def load_bias(self) -> int:
        return self.bias

    @property
    def fs_base(self) -> int | None:
        return self.frame.registers.get("fs_base")

    def read_memory(self, address: int, size: int) -> bytes:
        return self.read(address, size)

    def described_regno(self, name: str) -> int | None:
        """The number `$name` of a described register reads and writes by (DESCRIBED up)."""
        return None if self.floats is None else self.floats.described_regno(name)

    def register(self, regno: int) -> int | None:
        if regno >= DESCRIBED:
            return None if self.floats is None else self.floats.value(regno)
        if aarch64_registers.W0 <= regno < aarch64_registers.W0 + 31:
            whole = self.register(regno - aarch64_registers.W0)
            return None if whole is None else whole & 0xFFFFFFFF
        arch = self.frame.arch
        name = arch.register_name(regno)
        if arch.dwarf_registers is not DWARF_REGISTERS:  # not x86-64: v0-v31 are the floats'
            if name is not None and name in self.frame.registers:
                return self.frame.registers[name]
            return None if self.floats is None else self.floats.value(regno)
        if name is not None:
            return self.frame.registers.get(name)
        if regno == x86_registers.ORIG_RAX:
            return self.frame.registers.get("orig_rax")
        if self.floats is not None and x86_registers.is_float_register(regno):
            return self.floats.value(regno)
        return None

    def innermost(self) -> FrameView:
        return self if self.innermost_view is None else self.innermost_view()

    def not_saved(self, regno: int) -> bool:
        """The register is undefined in this frame (gdb's `<not saved>`), not merely unsaved."""
        return self.frame.arch.register_name(regno) in self.frame.undefined

    @property
    def has_avx512(self) -> bool:
        return self.floats is not None and self.floats.has_avx512

    @property
    def has_pkru(self) -> bool:
        return self.floats is not None and self.floats.has_pkru

    def described_register(self, name: str) -> tuple[Type, bytes] | None:
        """Register `name` as the target's description types it (the thread's, every frame)."""
        return None if self.floats is None else self.floats.described(name)

    def cfa(self) -> int | None:
        return self.frame.cfa

    def write_memory(self, address: int, data: bytes) -> None:
        self.write(address, data)

    def write_register(self, regno: int, value: int) -> None:
        if aarch64_registers.W0 <= regno < aarch64_registers.W0 + 31:  # zero-extended into x
            self.write_register(regno - aarch64_registers.W0, value & 0xFFFFFFFF)
            return
        x86 = self.frame.arch.dwarf_registers is DWARF_REGISTERS
        if self.floats is not None and (regno >= DESCRIBED or x86 and x86_registers.is_float_register(regno)):
            self.floats.set(regno, value)
            return
        name = "orig_rax" if regno == x86_registers.ORIG_RAX else self.frame.arch.register_name(regno)
        setter = self.set_register or same_value_writer(self.frame.registers, self.innermost_view)
        if setter is None or name is None:
            raise EvaluationError("registers of outer frames cannot be written")
        setter(name, value)


@dataclass(slots=True)
class ProcessEvalSymbols:
    """Names for the evaluator: the frame's scope first, then every module's globals (as
    gdb: the frame's module, then the others in load order)."""

    frame_symbols: FrameSymbols | None
    # The other modules with DWARF, as (load bias, symbols); asked for only when a name
    # is not the frame's, so a condition on a local never opens libc's debug file.
    others: Callable[[], list[tuple[int, ModuleSymbols]]]
    view: FrameView
    rtti: Rtti | None = None  # the program's dynamic types: C++ casts move by base offsets
    methods: Methods | None = None  # C++ methods through xmethods (expr/methods.py)
    calls: FunctionCaller | None = None  # calls into the program (expr/calls.py)
    no_registers: bool = False  # before `run`: gdb has no registers (the held copy's are not)
    input_radix: int = 10  # gdb's input-radix: numbers typed in
    strict_types: bool = True  # gdb's check type: off lets C++ overloads take an int for a pointer
    frame_names: Callable[[], list[str]] | None = None  # this frame's function and its callers' ($_caller_is)
    as_text: Callable[[Value], str] | None = None  # a value as print shows it ($_as_string)
    functions: Callable[[str], int | None] | None = None  # a function's ELF symbol: its runtime address
    data: Callable[[str], int | None] | None = None  # a variable's ELF symbol (expr/nodebug.py)
    # Without a frame (before `run`): main's unit, whose language is gdb's ("auto")
    unit: DIE | None = None
    # Without a frame: the unit of gdb's current source file (`list`'s), searched first
    home: tuple[ModuleSymbols, CompileUnit] | None = None
    warn: Callable[[str], None] | None = None  # gdb's warning (its text, without "warning: ")

    def _first_unit(self, module: ModuleSymbols) -> CompileUnit | None:
        return self.home[1] if self.home is not None and self.home[0] is module else None

    @property
    def frame(self) -> FrameView:
        return self.view

    @property
    def cplus(self) -> bool:
        if self.frame_symbols is None:
            from aliceserver.debuggers.symbols.dwarf.type_builder import is_cplus

            return self.unit is not None and is_cplus(self.unit)
        return self.frame_symbols.cplus

    @property
    def rust_scope(self) -> str | None:  # see expr/__init__.py
        if self.frame_symbols is None:  # no frame: Rust where main's unit is (gdb's auto language)
            from aliceserver.debuggers.symbols.dwarf.type_builder import is_rust

            return "" if self.unit is not None and is_rust(self.unit) else None
        return self.frame_symbols.rust_scope

    def lookup_local(self, name: str) -> Value | None:
        return self.frame_symbols.lookup_local(name) if self.frame_symbols is not None else None

    def lookup(self, name: str) -> Value | None:
        if self.frame_symbols is not None:
            value = self.frame_symbols.lookup(name)
            if value is not None:
                return value
        for bias, module in self.others():
            var = module.find_global(name, self._first_unit(module))
            if var is not None:  # its addresses are relative to its own module's base
                return module.value_of(var, replace(self.view, bias=bias))
        return None

    def minimal_function(self, name: str) -> Value | None:
        """gdb's minimal symbol: a function known by its ELF symbol alone (no debug info),
        tried by the evaluators after every scope the debug info offers."""
        address = self.functions(name) if self.functions is not None else None
        if address is None:
            return None
        own = [(self.view.bias, self.frame_symbols.module)] if self.frame_symbols is not None else []
        alias = function_alias(own + self.others(), address, name, lambda bias: replace(self.view, bias=bias))
        return alias if alias is not None else Value(NodebugFunctionType(), MemoryLoc(address), self.view)

    def is_constant(self, name: str) -> bool:
        if self.frame_symbols is not None and self.frame_symbols.lookup(name) is not None:
            return self.frame_symbols.is_constant(name)
        for _bias, module in self.others():
            var = module.find_global(name, self._first_unit(module))
            if var is not None:
                return is_constant(var)
        return False

    def entry_type(self, name: str) -> Type:  # NAME@entry: a parameter of the frame only
        if self.frame_symbols is None:
            raise EvaluationError(f'@entry can be used only for function parameters, not for "{name}"')
        return self.frame_symbols.entry_type(name)

    def entry_value(self, name: str) -> Value:
        if self.frame_symbols is None:
            raise EvaluationError(f'@entry can be used only for function parameters, not for "{name}"')
        return self.frame_symbols.entry_value(name)

    def is_namespace(self, name: str) -> bool:
        """Whether some module's DWARF declares the namespace `name` (gdb's errors): the
        frame's module first, its unit first."""
        if self.frame_symbols is not None:
            scope = self.frame_symbols.scope
            if self.frame_symbols.module.is_namespace(name, scope.cu if scope is not None else None):
                return True
        return any(module.is_namespace(name, self._first_unit(module)) for _bias, module in self.others())

    def lookup_type(self, name: str) -> Type | None:
        if self.frame_symbols is not None:
            found = self.frame_symbols.lookup_type(name)
            if found is not None:
                return found
        if self.frame_symbols is not None:
            c_names = self.frame_symbols.c_names
        else:  # (a struct tag is no type name in C)
            from aliceserver.debuggers.symbols.dwarf.dieattrs import attr_value
            from aliceserver.debuggers.symbols.dwarf.languages import C

            c_names = self.unit is not None and attr_value(self.unit, "DW_AT_language") in C
        for _bias, module in self.others():
            found = module.find_type(name, self._first_unit(module), c_names=c_names)
            if found is not None:
                return found
        return None


class VariableStore:
    """Hands out child references for values shown while the program is stopped."""

    def __init__(self, symbolize: Symbolize, rtti: Rtti | None = None) -> None:
        # reference -> (value, format, dynamic types, whether its printer's children show)
        self._values: dict[int, tuple[Value, str | None, DynamicTypes, bool]] = {}
        self._next = 1
        self._symbolize = symbolize
        self.rtti = rtti
        self.printers: PrinterHost | None = None  # the session's pretty printers
        # gdb's `print elements` and `print repeats` (set_print_limits)
        self.max_elements = FormatOptions().max_elements
        self.repeat_threshold = FormatOptions().repeat_threshold
        self.addresses = True  # gdb's `print address`
        self.array_indexes = False  # gdb's `print array-indexes`
        self.output_format: str | None = None  # gdb's `output-radix` 16 or 8: "x" or "o"
        self.nibbles = ""  # gdb's `print nibbles` on: /t's digit separator
        self.symbols = True  # gdb's `print symbol`
        self.null_stop = False  # gdb's `print null-stop`
        self.ascii = False  # gdb's `set target-charset ASCII`
        self.static_members = True  # gdb's `print static-members`
        self.max_depth = FormatOptions().max_depth  # gdb's `print max-depth`
        self.unions = True  # gdb's `print union`
        self.input_radix = 10  # gdb's `input-radix`, for the expressions' numbers
        self._scalars = ScalarDescriptions()  # kept across stops (scalarmemo.py)
        self._pointers = PointerDescriptions()  # kept across stops (pointermemo.py)
        self._type_names: dict[Type, str] = {}  # _type_name's, kept across stops

    def _options(self, fmt: str | None, top: bool = False, classes: list[str | None] | None = None) -> FormatOptions:
        return FormatOptions(fmt=fmt, top_level=top, symbolize=self._symbolize, max_elements=self.max_elements,
                             repeat_threshold=self.repeat_threshold, addresses=self.addresses,
                             array_indexes=self.array_indexes, output_format=self.output_format,
                             nibbles=self.nibbles, symbols=self.symbols, null_stop=self.null_stop,
                             ascii=self.ascii, classes=classes, static_members=self.static_members,
                             max_depth=self.max_depth, unions=self.unions)

    def as_text(self, value: Value) -> str:
        """The value as print shows it, its symbols named (gdb's str() of a gdb.Value)."""
        return format_value(value, self._options(None, top=True))

    def clear(self) -> None:
        self._values.clear()
        self.values_changed()

    def values_changed(self) -> None:
        """Memory or registers were written: printers' pages are read anew."""
        if self.printers is not None:
            self.printers.forget_pages()

    def describe(
        self, name: str, value: Value, fmt: str | None = None, *, top: bool = False, aggregate_value: bool = True,
        dynamic: DynamicTypes = DynamicTypes.NONE, block_depth: int = 0, locationless: bool = False,
        position: int = 0,
    ) -> VariableInfo:  # fmt: skip
        """`fmt`: print's /FMT letter, `r` after it for no pretty printer (`xr`; `r` alone).
        `block_depth`, `locationless`, `position`: a frame variable's place (VariableInfo's),
        given here since replacing them after costs as much as a small value's formatting.
        A scalar described before with the same bytes is not described again (scalarmemo.py)."""
        key = None
        if self.printers is None or not self.printers.started:
            how = (fmt, top, aggregate_value, dynamic, block_depth, locationless, position, self.max_elements,
                   self.repeat_threshold, self.addresses, self.array_indexes, self.output_format, self.nibbles,
                   self.symbols, self.null_stop, self.ascii, self.static_members, self.max_depth,
                   self.unions)  # fmt: skip
            key = scalar_key(name, value, how)
            if key is not None:
                found = self._scalars.find(key, value.address)
                if found is not None:
                    return found
            elif fmt is None and self.addresses and self.symbols:
                pointer = pointer_key(name, value, how, dynamic=bool(dynamic))
                if pointer is not None:
                    return self._pointers.describe(
                        pointer, value, self._options(None, top), self._symbolize,
                        partial(self._describe_anew, name, value, fmt, top=top, aggregate_value=aggregate_value,
                                dynamic=dynamic, block_depth=block_depth, locationless=locationless,
                                position=position),
                        partial(self._reference, value, fmt, dynamic & DynamicTypes.POINTERS if dynamic else dynamic),
                    )  # fmt: skip
        info = self._describe_anew(name, value, fmt, top=top, aggregate_value=aggregate_value, dynamic=dynamic,
                                   block_depth=block_depth, locationless=locationless, position=position)  # fmt: skip
        return info if key is None else self._scalars.keep(key, info)

    def _describe_anew(
        self, name: str, value: Value, fmt: str | None, *, top: bool, aggregate_value: bool,
        dynamic: DynamicTypes, block_depth: int, locationless: bool, position: int,
    ) -> VariableInfo:  # fmt: skip
        declared: str | None = None
        prefix = ""
        # `dynamic` is most often NONE: tested first, as a flag operation costs a microsecond
        if dynamic and self.rtti is not None and dynamic & (DynamicTypes.POINTERS | DynamicTypes.OBJECTS):
            objects = top and bool(dynamic & DynamicTypes.OBJECTS)
            if dynamic & DynamicTypes.POINTERS or objects:
                real = dynamic_value(value, self.rtti, objects=objects)
                if real is not None:
                    declared, value = type_name(value.type), real
                    if objects and isinstance(strip(value.type), StructType) and fmt is None:
                        prefix = f"({type_name(value.type)}) "  # gdb's print, as for pointers
        stripped = strip(value.type)
        aggregate = isinstance(stripped, (StructType, ArrayType))
        printer_errors: tuple[str, ...] = ()
        refused = printed = False
        classes: list[str | None] = []
        raw = fmt is not None and fmt.endswith("r")  # print/r, print/xr: no pretty printer
        if aggregate and not aggregate_value:
            text = ""
        else:
            letter = (fmt[:-1] or None) if raw and fmt is not None else fmt
            options = self._options(letter, top, classes)
            if self.printers is not None and not raw:
                text = prefix + self.printers.format(value, options)
                printer_errors, refused, printed = tuple(self.printers.errors), self.printers.refused, self.printers.printed
            else:
                text = prefix + format_value(value, options)
        if _without_type_prefix(text).startswith("<error"):
            text = _without_type_prefix(text)  # a pointer unreadable itself: no `(T *) `
        if isinstance(value.location, OptimizedOut) and value.location.error:  # gdb's read_var_value failed
            text, printed = f"<error reading variable: {value.location.reason}>", False  # model.READ_ERROR
        # a printer's own `<error reading variable: ...>` is its value, which gdb prints
        error = (text.startswith("<error") and not printed) or text == "<optimized out>"
        gone = aggregate and isinstance(value.location, OptimizedOut) and not value.location.error
        count = 0 if error else _safe_child_count(value)
        shown = dynamic & DynamicTypes.POINTERS if dynamic else DynamicTypes.NONE
        view = None
        aborted = self.printers is not None and self.printers.aborted  # print's error, not the value's
        partial = self.printers.partial if aborted and self.printers is not None else None  # printed before it
        if self.printers is not None and not raw and (not error or aborted):
            view = self._printer_view(value, fmt, count, aggregate_value)
        if view is not None:  # the printer's children; the members under `[raw]`
            reference = self._reference(value, fmt, shown, printed=True) if view.has_children else 0
            number = view.count or 0
            return VariableInfo(
                name=name, type=self._type_name(value.type), value=text, reference=reference,
                named_children=0 if view.indexed else number, indexed_children=number if view.indexed else 0,
                address=value.address, error=aborted, aggregate=aggregate, declared_type=declared, printer=view,
                printer_errors=printer_errors, block_depth=block_depth, locationless=locationless, position=position,
                optimized_out=gone, partial=partial, member_classes=_named(classes),
            )  # fmt: skip
        reference = self._reference(value, fmt, shown) if count else 0
        indexed = isinstance(stripped, ArrayType)
        cplus = cplus_class(value.type)
        return VariableInfo(
            name=name, type=self._type_name(value.type), value=text, reference=reference,
            named_children=0 if indexed else count, indexed_children=count if indexed else 0,
            address=value.address, error=error, aggregate=aggregate, declared_type=declared,
            bits=(value.bit_offset, value.bit_size) if value.bit_size else None,
            class_children=None if cplus is None else class_children(cplus),
            variant=self._active_variant(value, fmt, dynamic) if count else None,
            printer_errors=printer_errors, printer_refused=refused, block_depth=block_depth,
            locationless=locationless, position=position, optimized_out=gone, partial=partial,
            member_classes=_named(classes),
        )  # fmt: skip

    def _type_name(self, t: Type) -> str:
        """type_name(t), made once per type: CPython's `PyObject * const *` took 8 us at each
        stop. A type's name does not change once it is read from the DWARF."""
        try:
            found = self._type_names.get(t)
        except TypeError:  # a type that is not hashable: named each time
            return type_name(t)
        if found is None:
            if len(self._type_names) >= _MAX_TYPE_NAMES:
                self._type_names.clear()
            found = self._type_names[t] = type_name(t)
        return found

    def _active_variant(self, value: Value, fmt: str | None, dynamic: DynamicTypes) -> VariableInfo | None:
        """A Rust enum's (or what a pointer to one points to) active variant, described."""
        t = strip(value.type)
        if isinstance(t, (PointerType, ReferenceType)):
            t = strip(t.target)
        if not isinstance(t, StructType) or not is_rust_enum(t):
            return None
        try:
            found = [(name, kid) for name, kid in children(value) if name != "<anonymous>"]
        except EvaluationError:
            return None
        return self.describe(found[-1][0], found[-1][1], fmt, dynamic=dynamic) if found else None

    def describe_type_only(self, name: str, value: Value, dynamic: DynamicTypes) -> VariableInfo:
        """whatis and ptype: the type, with print object a pointer's dynamic type too; the
        value is neither read nor shown (a type-only evaluation's value is made up)."""
        declared: str | None = None
        if dynamic & DynamicTypes.POINTERS and self.rtti is not None:
            real = dynamic_value(value, self.rtti)
            if real is not None:
                declared, value = type_name(value.type), real
        aggregate = isinstance(strip(value.type), (StructType, ArrayType))
        count = _safe_child_count(value) if aggregate else 0  # by the type: MI counts so
        indexed = isinstance(strip(value.type), ArrayType)
        return VariableInfo(name=name, type=type_name(value.type), value="", declared_type=declared,
                            aggregate=aggregate, named_children=0 if indexed else count,
                            indexed_children=count if indexed else 0)

    def _printer_view(self, value: Value, fmt: str | None, count: int, full: bool) -> PrinterView | None:
        assert self.printers is not None
        options = self._options(fmt)
        view = self.printers.view(value, options, count=full)
        if view is None:
            return None
        raw_reference = self._reference(value, fmt, DynamicTypes.NONE) if count else 0
        raw = format_value(value, options) if full else ""  # options without printers
        return replace(view, raw_reference=raw_reference, raw_value=raw)

    def print_settings(self) -> tuple[object, ...] | None:
        """What a description depends on besides the value (None: pretty printers may run,
        which read memory through calls of their own)."""
        if self.printers is not None and self.printers.started:
            return None
        return (self.max_elements, self.repeat_threshold, self.addresses, self.array_indexes, self.output_format)

    def referred(self, reference: int) -> object:
        """What `reference` names at this stop (KeyError: nothing), for `refer` at a later one."""
        return self._values[reference]

    def refer(self, referred: object) -> int:
        """A new reference to what `referred` gave (keptarguments.py)."""
        value, fmt, dynamic, printed = cast("tuple[Value, str | None, DynamicTypes, bool]", referred)
        return self._reference(value, fmt, dynamic, printed=printed)

    def _reference(self, value: Value, fmt: str | None, dynamic: DynamicTypes, *, printed: bool = False) -> int:
        reference = self._next
        self._next = self._next + 1 if self._next < _MAX_REFERENCE else 1
        self._values[reference] = (value, fmt, dynamic, printed)
        return reference

    def children(self, reference: int, start: int, count: int | None) -> list[VariableInfo]:
        entry = self._values.get(reference)
        if entry is None:
            raise ProtocolError(f"no variable reference {reference} (references end when the program runs)")
        value, fmt, dynamic, printed = entry
        if printed and self.printers is not None:
            return [self._printer_child(child, fmt, dynamic) for child in
                    self.printers.children(value, max(0, start), count, self._options(fmt),
                                           key=reference)]
        found = [self.describe(name, child, fmt, dynamic=dynamic)
                 for name, child in children(value, max(0, start), count)]  # fmt: skip
        cplus = cplus_class(value.type)
        if cplus is None:
            return found
        members = cplus.fields_in_order()[max(0, start):]  # what `children` listed, in its order
        return [replace(info, access=m.access, artificial=getattr(m, "artificial", False))
                for info, m in zip(found, members, strict=False)]  # fmt: skip

    def _printer_child(self, child: Child, fmt: str | None, dynamic: DynamicTypes) -> VariableInfo:
        if child.value is None:
            text = child.text or ""
            return VariableInfo(child.name, "", text, error=text.startswith("<error"))
        return self.describe(child.name, child.value, fmt, dynamic=dynamic)


def _without_type_prefix(text: str) -> str:
    """`text` after the `(T *) ` gdb writes before a pointer's value (balanced parentheses)."""
    if not text.startswith("("):
        return text
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return text[index + 1 :].lstrip(" ")
    return text


def _safe_child_count(value: Value) -> int:
    try:
        return child_count(value)
    except EvaluationError:
        return 0


def register_variables(registers: Mapping[str, int]) -> list[VariableInfo]:
    return [
        VariableInfo(name, "long", f"{registers[name]:#x}")
        for name in REGISTER_NAMES
        if name in registers and name != "orig_rax"
    ]


def evaluate(
    text: str | Expr, symbols: EvalSymbols, rtti: Rtti | None = None, *, type_only: bool = False,
    values: SessionValues | None = None,
) -> Value:
    """`rtti`: `p->m` finds m in *p's dynamic type (gdb with print object on); `type_only`:
    gdb's whatis and ptype, which follow no pointer and write nothing; `values`: the
    session's value history and convenience variables."""
    from aliceserver.debuggers.symbols.dwarf.expr import evaluate_expression

    try:
        return evaluate_expression(text, symbols, rtti, type_only=type_only, values=values)
    except EvaluationError:
        raise
    except TargetError as error:
        raise EvaluationError(str(error)) from None


def parse_condition(text: str) -> str | Expr:
    """Parse a condition once. A cast to a typedef name only parses where the name is
    known as a type, so such a text is kept and parsed at each evaluation instead; so is
    one only Rust reads (`x.0 == 5`, `n == 3u32`): gdb parses a condition in its
    location's language, and each hit's frame is read in its own."""
    from aliceserver.debuggers.symbols.dwarf.expr import parse_expression
    from aliceserver.debuggers.symbols.dwarf.expr.parser import parse
    from aliceserver.debuggers.symbols.dwarf.expr.rust_parser import parse_rust

    try:
        return parse_expression(text)
    except EvaluationError as c_error:
        try:
            parse_rust(text)
            return text
        except EvaluationError:
            pass
        # Parse again taking every name in parentheses for a type: if that fails too, it
        # is a plain syntax error, said now; else a cast to a typedef, parsed per frame.
        try:
            parse(text, lambda name: True)
        except EvaluationError:
            raise c_error from None
        return text


def _named(classes: list[str | None]) -> tuple[str, ...]:
    """The classes FormatOptions.classes collected that print pretty names."""
    return tuple(name for name in classes if name is not None) if any(classes) else ()
