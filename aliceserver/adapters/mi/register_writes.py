"""-data-write-register-values FORMAT [REGNUM VALUE]...: gdb 13's
mi_cmd_data_write_register_values. Each VALUE is an expression taken as an integer and
written sign-extended over the whole register numbered REGNUM (regcache_cooked_write_signed),
frame 0 of the selected thread; here through the evaluator's assignment to `$name`, a vector
register 64 bits at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registers import register_names
from aliceserver.adapters.mi.registry import Context, MiError, Reply
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

_USAGE = ("-data-write-register-values: Usage: -data-write-register-values <format> "
          "[<regnum1> <value1>...<regnumN> <valueN>]")  # fmt: skip
# The 64-bit lanes of x86-64's vector registers.
_LANES = {"xmm": ("v2_int64", 2), "ymm": ("v4_int64", 4), "zmm": ("v8_int64", 8)}


def write_register_values(ctx: Context, args: list[str]) -> Reply:
    if not args:
        raise MiError(_USAGE)
    session = ctx.session
    inferior = session.inferior
    if inferior.process is None or inferior.running or inferior.selected_tid is None:
        raise MiError("-data-write-register-values: No registers.")
    if len(args) == 1:
        raise MiError("-data-write-register-values: No regs and values specified.")
    if (len(args) - 1) % 2:
        raise MiError("-data-write-register-values: Regs and vals are not in pairs.")
    tid = inferior.selected_tid
    names = register_names(session)
    for number_text, value_text in zip(args[1::2], args[2::2], strict=True):
        number = _leading_int(number_text)  # gdb's atoi
        if not 0 <= number < len(names) or not names[number]:
            raise MiError("bad register number")
        _write(session, tid, names[number], _integer(session, tid, value_text))
    return None


def _leading_int(text: str) -> int:
    digits = text.strip()
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    count = len(digits) - len(digits.lstrip("0123456789"))
    return sign * int(digits[:count]) if count else 0


def _integer(session: MiSession, tid: int, text: str) -> int:
    return int(_evaluate(session, tid, f"(long)({text})"))


def _assign(session: MiSession, tid: int, target: str, value: int) -> None:
    _evaluate(session, tid, f"{target} = {value}")


def _evaluate(session: MiSession, tid: int, text: str) -> str:
    try:
        info = session.evaluate(text, tid=tid, level=0)
    except AliceError as error:
        raise MiError(str(error)) from None
    if info.error:
        raise MiError(info.value)
    return info.value


def _write(session: MiSession, tid: int, name: str, value: int) -> None:
    kind = name[:3]
    fill = -1 if value < 0 else 0  # the sign extended over the upper lanes
    if kind in _LANES and name[3:].isdigit():
        member, count = _LANES[kind]
        for lane in range(count):
            _assign(session, tid, f"${name}.{member}[{lane}]", value if lane == 0 else fill)
    elif name.startswith("zmm") and name.endswith("h"):  # two uint128
        _assign(session, tid, f"${name}[0]", value & ((1 << 128) - 1))
        _assign(session, tid, f"${name}[1]", fill & ((1 << 128) - 1))
    elif name[:1] == "v" and name[1:].isdigit():  # aarch64's vnv union: its 64-bit lanes
        _assign(session, tid, f"${name}.d.u[0]", value)
        _assign(session, tid, f"${name}.d.u[1]", fill)
    elif name[:1] == "z" and name[1:].isdigit():  # SVE's svev union, as wide as the stub says
        for lane in range(int(_evaluate(session, tid, f"sizeof(${name})")) // 8):
            _assign(session, tid, f"${name}.d.u[{lane}]", value if lane == 0 else fill)
    elif name[:1] in "qdshb" and name[1:].isdigit() and len(name) > 1:  # one lane's views
        _assign(session, tid, f"${name}.u", value)
    elif name.startswith("st") and name[2:].isdigit():
        # gdb writes the integer's bytes, sign-extended, into the 80-bit float (no conversion:
        # 1 is a denormal); the evaluator's $stN = converts, so the engine writes the bits
        try:
            session.debugger.write_register(tid, name, value & ((1 << 80) - 1))
        except AliceError:  # the live engine writes only the general registers by name
            raise MiError(f"writing ${name} is not supported") from None
    else:
        _assign(session, tid, f"${name}", value)  # truncated to the register's size
