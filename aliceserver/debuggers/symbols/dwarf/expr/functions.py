"""gdb 13's built-in convenience functions (`$_streq(a, b)`...): evaluated by the debugger,
never by calling into the program, wherever an expression is (print, breakpoint conditions,
MI's -data-evaluate-expression and var objects).

gdb writes most of them in Python (python/lib/gdb/function: strfns.py, caller_is.py,
as_string.py), so their errors are a Python exception's two lines; `$_isvoid` and
`$_gdb_setting[_str]` are gdb's C. gdb 13 has no `$_shell` (gdb 14's): such a name is an
ordinary convenience variable here too. gdb refuses `set $_streq = 1` (dollars.store).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.expr import ast
from aliceserver.debuggers.symbols.dwarf.expr.calls import caller_of
from aliceserver.debuggers.symbols.dwarf.expr.convert import decay
from aliceserver.debuggers.symbols.dwarf.expr.dollars import session_values
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    PointerType,
    QualifiedType,
    Type,
    TypedefType,
    VoidType,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import Value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator

_STRING_LIMIT = 1 << 20  # gdb's Value.string() reads to the NUL; a bound for a wild pointer
_PYTHON_CLASSES = {  # gdb.Function classes, as a Python TypeError names them
    "_streq": ("_StrEq", ("a", "b")),
    "_strlen": ("_StrLen", ("a",)),
    "_memeq": ("_MemEq", ("a", "b", "length")),
    "_regex": ("_RegEx", ("string", "regex")),
    "_as_string": ("_AsString", ("val",)),
    "_caller_is": ("CallerIs", ("name",)),
    "_caller_matches": ("CallerMatches", ("name",)),
    "_any_caller_is": ("AnyCallerIs", ("name",)),
    "_any_caller_matches": ("AnyCallerMatches", ("name",)),
}
_CALLER_OPTIONAL = ("nframes",)
_C_FUNCTIONS = frozenset(("_isvoid", "_gdb_setting", "_gdb_setting_str", "_creal", "_cimag",
                          "_gdb_maint_setting", "_gdb_maint_setting_str"))
NAMES = frozenset((*_PYTHON_CLASSES, *_C_FUNCTIONS))


class PythonError(EvaluationError):
    """An exception of a function gdb writes in Python: its `Python Exception` line first."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"Python Exception <class '{kind}'>: {message}\nError occurred in Python: {message}")


def is_internal_function(ev: Evaluator, node: ast.Expr) -> bool:
    """`$name` naming one of gdb's functions the user has not replaced with a value (no
    register's name starts with `_`)."""
    return isinstance(node, ast.Register) and node.name in NAMES and \
        session_values(ev).variables.get(node.name) is None


def call_internal(ev: Evaluator, node: ast.Call) -> Value:
    assert isinstance(node.function, ast.Register)
    name = node.function.name
    # gdb's evaluate_subexp_with_coercion: an array variable is passed as a pointer to it
    args = [decay(value, ev.builtins) if isinstance(arg, ast.Name) and isinstance(strip(value.type), ArrayType)
            and isinstance(value.location, MemoryLoc) else value
            for arg, value in ((arg, ev.eval(arg)) for arg in node.args)]
    if ev.type_only:  # gdb's whatis and ptype: an int, whatever the function or its arguments
        return _int(ev, False)
    if name == "_isvoid":
        if len(args) != 1:
            raise EvaluationError("You must provide one argument for $_isvoid.")
        return _int(ev, isinstance(strip(args[0].type), VoidType))
    if name in ("_gdb_setting", "_gdb_setting_str"):
        return _setting(ev, name, args)
    if name in ("_creal", "_cimag"):
        return _complex_part(ev, name, args)
    if name in ("_gdb_maint_setting", "_gdb_maint_setting_str"):  # no maintenance settings here
        raise EvaluationError(f"${name} is not supported by aliceserver.")
    _check_count(name, args)
    # gdb's Python functions answer a Python bool: the language's (C's int, C++'s bool)
    if name == "_streq":
        return ev.truth(read_string(args[0]) == read_string(args[1]))
    if name == "_strlen":
        return Value.of_int(ev.builtins.of("long"), len(read_string(args[0])), ev.ctx)
    if name == "_memeq":
        return ev.truth(_memeq(ev, args[0], args[1], args[2].as_int()))
    if name == "_regex":
        return ev.truth(_regex_match(read_string(args[1]), read_string(args[0])))
    if name == "_as_string":
        from aliceserver.debuggers.symbols.dwarf.format import format_value

        as_text: Callable[[Value], str] = getattr(ev.symbols, "as_text", None) or format_value
        return _string(ev, as_text(args[0]))
    return ev.truth(_callers(ev, name, args))


def _complex_part(ev: Evaluator, name: str, args: Sequence[Value]) -> Value:
    """gdb's creal_internal_fn and cimag_internal_fn: a half of a _Complex value."""
    if len(args) != 1:
        raise EvaluationError(f"You must provide one argument for ${name}.")
    t = strip(args[0].type)
    if not isinstance(t, BaseType) or t.encoding is not Encoding.COMPLEX:
        raise EvaluationError("expected a complex number")
    half = t.size // 2
    part = BaseType(t.name.replace("complex ", "").replace("_Complex", "").strip() or "double", half,
                    Encoding.FLOAT)
    data = args[0].data()
    return Value.of_bytes(part, data[:half] if name == "_creal" else data[half : 2 * half], ev.ctx)


def _check_count(name: str, args: Sequence[Value]) -> None:
    """Python's TypeError for a call with too few or too many arguments."""
    cls, params = _PYTHON_CLASSES[name]
    optional = _CALLER_OPTIONAL if cls.startswith(("Caller", "AnyCaller")) else ()
    if len(args) < len(params):
        missing = params[len(args):]
        quoted = [f"'{p}'" for p in missing]
        listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
        plural = "s" if len(missing) > 1 else ""
        raise PythonError("TypeError", f"{cls}.invoke() missing {len(missing)} required positional "
                                       f"argument{plural}: {listed}")
    most = len(params) + len(optional)
    if len(args) > most:
        raise PythonError("TypeError", f"{cls}.invoke() takes {most + 1} positional arguments but "
                                       f"{len(args) + 1} were given")


def _int(ev: Evaluator, truth: bool) -> Value:
    return Value.of_int(ev.builtins.of("int"), int(truth), ev.ctx)


def _string(ev: Evaluator, text: str) -> Value:
    data = text.encode("utf-8", "surrogateescape") + b"\0"
    return Value.of_bytes(ArrayType(ev.builtins.of("char"), len(data)), data, ev.ctx)


def _char_like(t: Type) -> bool:
    while isinstance(t, QualifiedType):
        t = t.target
    t = strip(t)
    return isinstance(t, BaseType) and t.size == 1 and t.encoding in (
        Encoding.SIGNED_CHAR, Encoding.UNSIGNED_CHAR, Encoding.SIGNED, Encoding.UNSIGNED)


def _wide_size(t: Type) -> int:
    """The size of a wide character type (wchar_t, char16_t, char32_t, by name through
    qualifiers and typedefs, as gdb's classify_type), else 0."""
    while True:
        name = getattr(t, "name", None)
        if name in _WIDE_NAMES:
            return strip(t).size
        if isinstance(t, QualifiedType) or isinstance(t, TypedefType):
            t = t.target
            continue
        return 0


_WIDE_NAMES = frozenset(("wchar_t", "char16_t", "char32_t"))


def _wide_string(value: Value, element: Type) -> str:
    """A wide string: an array's units, or those a pointer points at, up to a zero unit."""
    size = _wide_size(element)
    t = strip(value.type)
    if isinstance(t, ArrayType):
        data = value.data()
    else:
        address, chunks = value.as_int(), bytearray()
        while len(chunks) < _STRING_LIMIT and not (len(chunks) >= size and chunks[-size:] == bytes(size)):
            chunks += _read(value, address + len(chunks), size)
        data = bytes(chunks)
    codes = [int.from_bytes(data[at : at + size], "little") for at in range(0, len(data) - size + 1, size)]
    codes = codes[: codes.index(0)] if 0 in codes else codes
    return "".join(chr(code) if code < 0x110000 else "\ufffd" for code in codes)


def read_string(value: Value) -> str:
    """gdb's Value.string(): a char (or wide char) array up to its NUL, or the string a char
    pointer points at; gdb's error for any other type."""
    t = strip(value.type)
    if isinstance(t, (ArrayType, PointerType)) and _wide_size(t.element if isinstance(t, ArrayType) else t.target):
        return _wide_string(value, t.element if isinstance(t, ArrayType) else t.target)
    if isinstance(t, ArrayType) and _char_like(t.element):
        return _decoded(value.data().split(b"\0", 1)[0])
    if isinstance(t, PointerType) and _char_like(t.target):
        address = value.as_int()
        data = bytearray()  # up to the NUL
        while len(data) < _STRING_LIMIT:
            chunk = _read(value, address + len(data), 64)
            end = chunk.find(b"\0")
            if end >= 0:
                data += chunk[:end]
                break
            data += chunk
        return _decoded(bytes(data))
    raise PythonError("gdb.error", f"Trying to read string with inappropriate type `{type_name(value.type)}'.")


def _read(value: Value, address: int, size: int) -> bytes:
    """`size` bytes at `address`, else the one byte there (the readable memory may end
    inside the chunk); gdb's MemoryError when not even that can be read."""
    try:
        return value.ctx.read_memory(address, size)
    except EvaluationError:
        try:
            return value.ctx.read_memory(address, 1)
        except EvaluationError:
            raise PythonError("gdb.MemoryError", f"Cannot access memory at address {address:#x}") from None


def _decoded(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _bytes(ev: Evaluator, value: Value, length: int) -> bytes:
    """`length` bytes where a reinterpret_cast to a pointer points: a pointer's target, an
    array's own bytes (a literal gdb would copy into the program first: read here)."""
    t = strip(value.type)
    if isinstance(t, ArrayType) and not isinstance(value.location, MemoryLoc):
        if caller_of(ev.symbols) is None:  # gdb copies it into the program first
            raise PythonError("gdb.error", "evaluation of this expression requires the target program to be active")
        data = value.data()
        if len(data) < length:
            raise PythonError("gdb.MemoryError", "Cannot access memory beyond the value")
        return data[:length]
    address = value.location.address if isinstance(t, ArrayType) and isinstance(value.location, MemoryLoc) \
        else value.as_int()
    try:
        return value.ctx.read_memory(address, length)
    except EvaluationError:
        raise PythonError("gdb.MemoryError", f"Cannot access memory at address {address:#x}") from None


def _memeq(ev: Evaluator, a: Value, b: Value, length: int) -> bool:
    if length < 0:
        raise PythonError("ValueError", "length must be non-negative")
    return length == 0 or _bytes(ev, a, length) == _bytes(ev, b, length)


def _regex_match(pattern: str, text: str) -> bool:
    try:
        return re.match(pattern, text) is not None
    except re.error as error:
        raise PythonError("re.error", str(error)) from None


def _callers(ev: Evaluator, name: str, args: Sequence[Value]) -> bool:
    """caller_is.py: the selected frame's callers by name, `nframes` (default 1) up."""
    nframes = args[1].as_int() if len(args) > 1 else 1
    if nframes < 0:
        raise PythonError("ValueError", "nframes must be >= 0")
    names = _frame_names(ev)
    if not name.startswith("_any") and nframes >= len(names):
        return False  # its walk ends before it reads NAME (a Rust &str it cannot read)
    wanted = read_string(args[0])
    matches: Callable[[str], bool] = (
        (lambda found: found == wanted) if name.endswith("_is")
        else (lambda found: _regex_match(wanted, found)))
    if name.startswith("_any"):
        return any(matches(found) for found in names[: nframes + 1])
    return nframes < len(names) and matches(names[nframes])


def _frame_names(ev: Evaluator) -> list[str]:
    """The names of the evaluation's frame and its callers, innermost first."""
    source = getattr(ev.symbols, "frame_names", None)
    if source is None or getattr(ev.symbols, "no_registers", False):  # no process yet
        raise PythonError("gdb.error", "No frame is currently selected.")
    names: list[str] = source()
    return names


def _setting(ev: Evaluator, name: str, args: Sequence[Value]) -> Value:
    """$_gdb_setting("print elements") and its _str form: the settings are the front end's,
    which replaces a call with a literal argument by the value (mi/setting_functions.py);
    any other string is refused rather than answered wrongly."""
    if len(args) != 1:
        raise EvaluationError(f"You must provide an argument to ${name}")
    t = strip(args[0].type)
    if not (isinstance(t, ArrayType) and _char_like(t.element)):  # gdb: no char pointer either
        raise EvaluationError(f"First argument of ${name} must be a string.")
    raise EvaluationError(f'"${name}" of a string other than a literal is not supported by aliceserver.')
