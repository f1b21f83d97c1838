"""The part of gdb's Python API that pretty printers use, importable as `gdb` (see
printers/loader.py, which registers it under that name when printers are first loaded).

Nothing here holds a session: the functions read the context set around each printer
call (printers/context.py), and the lists printers append to (`gdb.pretty_printers`,
`gdb.type_printers`, `gdb.xmethods`) are the current session's, through `__getattr__`.
"""

from __future__ import annotations

from typing import Any

from aliceserver.debuggers.printers import context
from aliceserver.debuggers.printers.gdbtype import TYPE_CODES, Field, Type, lookup_type
from aliceserver.debuggers.printers.objfiles import Objfile, Progspace

VERSION = "13.1"  # the gdb whose API (and printer behaviour) this follows
HOST_CONFIG = TARGET_CONFIG = "x86_64-linux-gnu"
PYTHONDIR = "/usr/share/gdb/python"  # gdb's default; no script is loaded from it
STDOUT, STDERR, STDLOG = 0, 1, 2

SYMBOL_UNDEF_DOMAIN, SYMBOL_VAR_DOMAIN, SYMBOL_STRUCT_DOMAIN = 0, 1, 2
SYMBOL_LABEL_DOMAIN, SYMBOL_MODULE_DOMAIN, SYMBOL_COMMON_BLOCK_DOMAIN = 3, 4, 5
COMMAND_NONE, COMMAND_RUNNING, COMMAND_DATA, COMMAND_STACK, COMMAND_FILES = -1, 0, 1, 2, 3
COMMAND_SUPPORT, COMMAND_STATUS, COMMAND_BREAKPOINTS, COMMAND_TRACEPOINTS = 4, 5, 6, 7
COMMAND_OBSCURE, COMMAND_MAINTENANCE, COMMAND_USER, COMMAND_TUI = 8, 9, 10, 11
PARAM_BOOLEAN, PARAM_AUTO_BOOLEAN, PARAM_UINTEGER, PARAM_INTEGER = 0, 1, 2, 3
PARAM_STRING, PARAM_STRING_NOESCAPE, PARAM_OPTIONAL_FILENAME, PARAM_FILENAME = 4, 5, 6, 7
PARAM_ZINTEGER, PARAM_ZUINTEGER, PARAM_ZUINTEGER_UNLIMITED, PARAM_ENUM = 8, 9, 10, 11

globals().update(TYPE_CODES)


class error(RuntimeError):  # noqa: N801 - gdb's names
    """gdb.error: what a gdb operation raises."""


class MemoryError(error):  # noqa: A001
    """gdb.MemoryError: memory of the program could not be read."""


class GdbError(Exception):
    """A script's error that gdb reports without a traceback."""


for _exc in (error, MemoryError, GdbError):  # named in tracebacks as gdb names them
    _exc.__module__ = "gdb"


# Imported after error/MemoryError: gdbvalue refers to them.
from aliceserver.debuggers.printers.gdbvalue import LazyString, Value  # noqa: E402

__all__ = [
    "Field", "GdbError", "LazyString", "MemoryError", "Objfile", "Progspace", "Type", "Value",
    "VERSION", "error", "lookup_type",
]  # fmt: skip

_SESSION_LISTS = ("pretty_printers", "type_printers", "xmethods", "frame_filters", "frame_unwinders")


def __getattr__(name: str) -> Any:
    if name in _SESSION_LISTS:
        return getattr(context.current().session, name)
    if name in ("printing", "types", "xmethod"):  # `gdb.printing` without importing it
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'gdb' has no attribute {name!r}")


# --- objfiles and program spaces -------------------------------------------------------
def objfiles() -> list[Objfile]:
    return list(context.current().session.objfiles.values())


def current_objfile() -> Objfile | None:
    call = context.current_or_none()
    return call.objfile if call is not None else None


def current_progspace() -> Progspace:
    return context.current().session.progspace


def progspaces() -> list[Progspace]:
    return [current_progspace()]


def lookup_objfile(name: str, by_build_id: bool = False) -> Objfile:
    for objfile in objfiles():
        if objfile.filename and (objfile.filename == name or objfile.filename.endswith("/" + name)):
            return objfile
    raise ValueError("Not a valid objfile name.")


def default_visualizer(value: Value) -> Any:
    """The printer gdb would use for `value`, or None."""
    from aliceserver.debuggers.printers.render import find_printer

    return find_printer(context.current().session, value)


# --- values and symbols --------------------------------------------------------------------
def parse_and_eval(expression: str, global_context: bool = False) -> Value:
    from aliceserver.debuggers.printers.gdbvalue import translate
    from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError

    call = context.current()
    text = expression.strip()
    if text == "()":  # Rust's unit value (the printers of sets ask for it)
        from aliceserver.debuggers.symbols.dwarf.types import StructType

        return Value(_unit_value(StructType("struct", "()", 0, cplus=True)))
    cast_to, inner = _cxx_cast(text)
    if cast_to is not None:  # `static_cast<T>(e)`: parsed here, T looked up as a type
        return parse_and_eval(inner).cast(lookup_type(cast_to))
    if call.target is None:
        raise error("No symbol table is loaded.  Use the \"file\" command.")
    try:
        return Value(call.target.evaluate(text))
    except EvaluationError as exc:
        raise translate(exc) from None


def _cxx_cast(text: str) -> tuple[str | None, str]:
    for keyword in ("static_cast<", "reinterpret_cast<"):
        if text.startswith(keyword) and text.endswith(")") and ">(" in text:
            close = text.index(">(")
            return text[len(keyword) : close].strip(), text[close + 2 : -1]
    return None, text


def _unit_value(t: Any) -> Any:
    from aliceserver.debuggers.printers.gdbvalue import _frame
    from aliceserver.debuggers.symbols.dwarf.values import Value as DwarfValue

    return DwarfValue.of_bytes(t, b"", _frame())


def lookup_symbol(name: str, block: object = None, domain: object = None) -> tuple[Symbol | None, bool]:
    found = _symbol(name)
    return found, False


def lookup_global_symbol(name: str, domain: object = None) -> Symbol | None:
    return _symbol(name)


def lookup_static_symbol(name: str, domain: object = None) -> Symbol | None:
    return _symbol(name)


def lookup_static_symbols(name: str, domain: object = None) -> list[Symbol]:
    found = _symbol(name)
    return [found] if found is not None else []


class Symbol:
    """gdb.Symbol for a variable found by name: its value, name and type."""

    def __init__(self, name: str, value: Any) -> None:
        self.name = self.linkage_name = self.print_name = name
        self._value = value
        self.type = Type(value.type)
        self.is_variable = True
        self.is_valid = lambda: True
        self.needs_frame = False

    def value(self, frame: object = None) -> Value:
        return Value(self._value)


def _symbol(name: str) -> Symbol | None:
    call = context.current()
    if call.target is None:
        return None
    try:
        value = call.target.lookup(name)
    except Exception:  # an unreadable or unparsable name: gdb finds no symbol
        return None
    return Symbol(name, value) if value is not None else None


def block_for_pc(pc: int) -> None:
    return None  # blocks are not modelled: printers that ask fall back


def decode_line(*args: Any) -> Any:
    raise error("decode_line is not supported here")


# --- the program ---------------------------------------------------------------------------
class Inferior:
    """gdb.Inferior: the program's memory as printers read it."""

    num = 1

    def __init__(self) -> None:
        self.progspace = current_progspace()

    @property
    def pid(self) -> int:
        return 0

    def is_valid(self) -> bool:
        return True

    def threads(self) -> tuple[()]:
        return ()

    def read_memory(self, address: int, length: int) -> memoryview:
        from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
        from aliceserver.debuggers.symbols.dwarf.values import read

        target = context.current().target
        if target is None:
            raise MemoryError(f"Cannot access memory at address {int(address):#x}")
        try:
            return memoryview(read(target.frame, int(address), int(length)))
        except EvaluationError as exc:
            raise MemoryError(str(exc)) from None


def selected_inferior() -> Inferior:
    return Inferior()


def inferiors() -> tuple[Inferior, ...]:
    return (Inferior(),)


class Frame:
    """gdb.Frame for the frame being printed: its pc and variables."""

    def pc(self) -> int:
        target = context.current().target
        return target.frame.pc if target is not None else 0

    def read_var(self, name: Any, block: object = None) -> Value:
        found = _symbol(str(name))
        if found is None:
            raise ValueError(f"Variable '{name}' not found.")
        return found.value()

    def is_valid(self) -> bool:
        return True

    def name(self) -> None:
        return None

    def function(self) -> None:
        return None

    def block(self) -> Any:
        raise RuntimeError("Cannot locate block for frame.")

    def older(self) -> None:
        return None

    def newer(self) -> None:
        return None

    def level(self) -> int:
        return 0


def selected_frame() -> Frame:
    if context.current().target is None:
        raise error("No frame selected.")
    return Frame()


def newest_frame() -> Frame:
    return selected_frame()


# --- settings and commands -----------------------------------------------------------------
def parameter(name: str) -> Any:
    params = context.current().session.parameters
    key = " ".join(name.split())
    if key not in params:
        raise RuntimeError(f"Could not find parameter `{name}'.")
    return params[key]


def convenience_variable(name: str) -> Any:
    return context.current().session.convenience.get(name)


def set_convenience_variable(name: str, value: Any) -> None:
    context.current().session.convenience[name] = value


def execute(command: str, from_tty: bool = False, to_string: bool = False) -> Any:
    """Scripts cannot run console commands here: printers do not need them."""
    raise error(f"gdb.execute is not supported by this debugger (asked for {command!r})")


def write(text: str, stream: int = STDOUT) -> None:
    """To the console while a `python` command runs; printers' writes are only logged."""
    call = context.current_or_none()
    if call is not None and call.output is not None:
        call.output[0 if stream == STDOUT else 1].append(str(text))
        return
    import logging

    logging.getLogger(__name__).info("script output: %s", text.rstrip("\n"))


def flush(stream: int = STDOUT) -> None:
    return None


def solib_name(address: int) -> str | None:
    return None


def string_to_argv(text: str) -> list[str]:
    import shlex

    return shlex.split(text)


def post_event(event: Any) -> None:
    event()


class Command:
    """Scripts may define console commands; they are accepted and not reachable (inert)."""

    def __init__(self, name: str, command_class: int = COMMAND_NONE, completer_class: int = -1,
                 prefix: bool = False) -> None:
        self.name = name

    def dont_repeat(self) -> None:
        return None


class Parameter:
    """Scripts may define settings; they keep their value and are not reachable (inert)."""

    def __init__(self, name: str, command_class: int = COMMAND_NONE, parameter_class: int = 0,
                 *enum_sequence: Any) -> None:
        self.name = name
        self.value: Any = None


class Function:
    """Convenience functions ($name(...)) a script defines: accepted, inert."""

    def __init__(self, name: str) -> None:
        self.name = name


class _EventRegistry:
    """An event registry that accepts connections; no event is ever emitted (inert)."""

    def __init__(self) -> None:
        self._handlers: list[Any] = []

    def connect(self, handler: Any) -> None:
        self._handlers.append(handler)

    def disconnect(self, handler: Any) -> None:
        if handler in self._handlers:
            self._handlers.remove(handler)


class _Events:
    def __getattr__(self, name: str) -> _EventRegistry:
        registry = _EventRegistry()
        setattr(self, name, registry)
        return registry


events = _Events()
