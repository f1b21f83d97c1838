"""The value of `return VALUE` and MI's -exec-return VALUE (gdb's return_command, which
mi_cmd_exec_return calls): computed once in the selected frame before it is popped, cast
to the function's return type, then put where the caller looks (amd64_return_value): an
integer, char, bool, enum or pointer in rax; a float or double in the low 4 or 8 bytes of
xmm0, the rest of xmm0 left as it was. A long double (st0), a 128-bit integer (rax:rdx)
and a struct are refused in our words."""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registry import MiError
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.debuggers.model import StackFrame

# the return type: (struct format, xmm0's lane of that size as an integer, its bits)
_LANES = {"float": ("<f", "v4_int32", 32), "double": ("<d", "v2_int64", 64)}
# returned in st0 or xmm0 as a whole (not done): not to be taken for an integer in rax
_UNWRITTEN = frozenset(
    ("long double", "_Float128", "__float128", "_Float64x", "__int128", "unsigned __int128")
)
_CAST = re.compile(r"\s*\(([^()]+)\)\s*[^\s)]")
_NAN = re.compile(r"(-?)nan\(0x([0-9a-f]+)\)")


def return_value(session: MiSession, function: str, text: str) -> Callable[[int], None] | None:
    """gdb's return_command's value, for the console's return and MI's -exec-return: TEXT
    computed in the selected frame and cast to FUNCTION's return type before the frame is
    popped; what puts it where the caller looks (rax, xmm0) once it is, given the thread;
    None: nothing to put (a void function's value is computed for its side effects)."""
    returns = _returned_type(session.evaluate(function, type_only=True).type) if function else ""
    returns = returns or _cast_type(session, text)  # no debug info: an explicit cast's type
    if not returns:
        raise MiError("Return value type not available for selected stack frame.\n"
                      "Please use an explicit cast of the value to return.")  # fmt: skip
    if returns == "void":
        session.evaluate(text)
        return None
    if returns in _LANES:
        assignment = float_returned(session, returns, text)

        def to_xmm0(tid: int) -> None:
            session.evaluate(assignment, tid=tid, level=0)

        return to_xmm0
    if returns in _UNWRITTEN or "complex" in returns.split():
        raise MiError(f"Returning a {returns} value is not supported by aliceserver.")
    value = session.evaluate(f"({returns})({text})")  # once: TEXT may have side effects
    result = None if value.aggregate else _integer(session, session.display(value))
    if result is None:
        raise MiError(f"Returning a {returns} value is not supported by aliceserver.")
    kept = ~((1 << 8 * _size_of(session, returns)) - 1) & (2**64 - 1)

    def to_rax(tid: int) -> None:  # as gdb: the value's bytes alone (an int: eax), the rest kept
        old = session.debugger.read_registers(tid)["rax"] if kept else 0
        session.debugger.write_register(tid, "rax", old & kept | result & ~kept)

    return to_rax


def _size_of(session: MiSession, type_name: str) -> int:
    """sizeof TYPE_NAME, at most 8 (a register's)."""
    try:
        return min(8, int(session.display(session.evaluate(f"sizeof ({type_name})")).split()[0], 0))
    except (AliceError, ValueError, IndexError):
        return 8


def returning_function(session: MiSession, frame: StackFrame) -> str:
    """The function `return` in FRAME returns from, if it has debug info (gdb's
    get_frame_function): an inlined call's own (its name is in scope in its frame), else
    the one whose symbol holds its pc."""
    if frame.inlined:
        return debug_function(session, frame.function or "")
    try:
        symbol = session.debugger.lookup_address(frame.pc)
    except AliceError:
        return ""
    return debug_function(session, symbol.name or "")


def debug_function(session: MiSession, function: str) -> str:
    """FUNCTION if it has debug info (gdb's get_frame_function), else "": a function known
    by its ELF symbol alone has no return type, and `return` asks of the "selected stack
    frame"."""
    if not function:
        return ""
    try:
        typed = session.evaluate(function, type_only=True).type
    except AliceError:
        return ""
    return "" if typed.startswith("<") else function  # `<text variable, no debug info>`


def _cast_type(session: MiSession, text: str) -> str:
    """The type of TEXT's outermost cast `(TYPE) ...`, as gdb's return_command takes when
    the function has none; "" if TEXT does not start with one."""
    match = _CAST.match(text)
    if match is None:
        return ""
    try:  # a type, not a parenthesized variable
        session.evaluate(f"({match.group(1)} *) 0", type_only=True)
    except AliceError:
        return ""
    return match.group(1).strip()


def _returned_type(function_type: str) -> str:
    """`int *` of `int *(void)`: the type before the function's parameter list."""
    if not function_type.endswith(")"):
        return function_type
    depth = 0
    for index in range(len(function_type) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(function_type[index], 0)
        if depth == 0:
            return function_type[:index].rstrip()
    return function_type


def _integer(session: MiSession, shown: str) -> int | None:
    """The bits in rax of a value shown as SHOWN: an integer or char (`66 'B'`), a pointer
    (`(int *) 0x4010 <g>`), an enum's or bool's name read back as a number."""
    words = shown.split()
    try:
        return int(words[0], 0) % 2**64
    except (ValueError, IndexError):
        pass
    if words[0] in ("true", "false"):  # a bool
        return int(words[0] == "true")
    address = next((word for word in words if word.startswith("0x")), None)
    if address is not None:
        return int(address, 16)
    try:
        return int(
            session.display(session.evaluate(f"(unsigned long long)({shown})")).split()[0], 0
        )
    except (AliceError, ValueError, IndexError):
        return None


def float_returned(session: MiSession, returns: str, text: str) -> str:
    """For a float or double function, the assignment that puts TEXT (cast to RETURNS,
    as gdb's value_cast) in xmm0, to evaluate once the frame is popped."""
    lane = _LANES[returns]
    shown = session.display(session.evaluate(f"({returns})({text})"))
    bits = _bits(shown, returns)
    if bits is None:
        raise MiError(f"Returning a {returns} value is not supported by aliceserver.")
    _, name, size = lane
    signed = bits - (1 << size) if bits >> (size - 1) else bits  # the lane is a signed int
    return f"$xmm0.{name}[0] = {signed}"


def _bits(shown: str, returns: str) -> int | None:
    """The IEEE bits of a value gdb printed as SHOWN (%g to round trip, inf, nan(0xM))."""
    fmt, _, size = _LANES[returns]
    nan = _NAN.fullmatch(shown)
    if nan is not None:  # the mantissa gdb shows is the value's own: keep it
        exponent = (1 << 8) - 1 if size == 32 else (1 << 11) - 1
        mantissa_bits = 23 if size == 32 else 52
        sign = 1 << (size - 1) if nan.group(1) else 0
        return sign | exponent << mantissa_bits | int(nan.group(2), 16)
    try:
        value = float(shown)
    except ValueError:
        return None
    if math.isnan(value):
        return None
    return int.from_bytes(struct.pack(fmt, value), "little")
