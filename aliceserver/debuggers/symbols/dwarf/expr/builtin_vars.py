"""gdb 13's internal variables and functions a session starts with (value.c's
create_internalvar_type_lazy and add_internal_function calls, and the Python functions of
gdb's data directory): `show convenience` lists them after the user's, newest first, and
`$name` of each is what gdb makes of it.

Static tracepoint data (`$_sdata`) exists only at a static tracepoint's trace frame, which
no target here has: it is void, as gdb's elsewhere. The SDT probe arguments (`$_probe_arg0`)
and `$_exception` (libstdc++'s probe's argument) are not read: at a probe's address they
are refused, elsewhere gdb's own errors."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, ImplicitLoc
from aliceserver.debuggers.symbols.dwarf.types import (
    BaseType,
    Encoding,
    InternalFunctionType,
    VoidType,
)
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value

GDB_VERSION = {"_gdb_major": 13, "_gdb_minor": 1}
_PYTHON_FUNCTIONS = ("_any_caller_matches", "_any_caller_is", "_caller_matches", "_caller_is", "_as_string",
                     "_regex", "_streq", "_strlen", "_memeq")
_C_FUNCTIONS = ("_gdb_maint_setting", "_gdb_maint_setting_str", "_gdb_setting", "_gdb_setting_str", "_cimag",
                "_creal", "_isvoid")
INTERNAL_FUNCTIONS = frozenset((*_PYTHON_FUNCTIONS, *_C_FUNCTIONS))
_PROBE_ARGS = (*(f"_probe_arg{n}" for n in range(11, -1, -1)), "_probe_argc")
# gdb 13's listing of a fresh session, newest first
STARTUP = (*_PYTHON_FUNCTIONS, "_gdb_minor", "_gdb_major", "_inferior", *_C_FUNCTIONS, "_sdata",
           "_inferior_thread_count", "_gthread", "_thread", *_PROBE_ARGS, "_siginfo", "_exception")
# computed each time they are read; gdb's value_assign refuses to store into them
READ_ONLY = frozenset(("_thread", "_gthread", "_inferior", "_sdata", "_inferior_thread_count"))

ProbeAt = Callable[[int], bool]  # whether an SDT probe is at the pc


def computed(name: str, ctx: FrameContext, *, has_frame: bool, thread_count: int,
             probe_at: ProbeAt | None) -> Value | None:
    """The value of a built-in gdb computes when read (None: not one of those)."""
    if name in INTERNAL_FUNCTIONS:
        return Value(InternalFunctionType(function=name), ImplicitLoc(b""), ctx, _data=b"")
    if name == "_sdata":
        return Value(VoidType(), ImplicitLoc(b""), ctx, _data=b"")
    if name == "_inferior_thread_count":
        return Value.of_int(BaseType("int", 4, Encoding.SIGNED), thread_count, ctx)
    if name in _PROBE_ARGS or name == "_exception":
        if not has_frame:
            raise EvaluationError("No frame selected")
        if probe_at is not None and probe_at(ctx.pc):
            raise EvaluationError(f"${name} at an SDT probe is not supported by aliceserver.")
        if name == "_exception":
            raise EvaluationError("did not find exception probe (does libstdcxx have SDT probes?)")
        raise EvaluationError(f"No probe at PC 0x{ctx.pc:016x}")
    return None
