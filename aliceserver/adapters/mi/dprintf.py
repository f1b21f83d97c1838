"""gdb's printf and dynamic printf: `printf "FORMAT", ARGS`, `dprintf LOCATION,"FORMAT",ARGS`,
MI's -dprintf-insert, and a dprintf's hit (it prints, then the program goes on unseen).

A dprintf is a breakpoint whose command list is its printf line (gdb's dprintf-style gdb),
or under dprintf-style call a call of dprintf-function (printf) in the program, its
dprintf-channel first when set; agent falls back to gdb's printf, as gdb does on a target
that runs no breakpoint commands (none here does). The line is made when the dprintf is
and again when one of those settings is set (gdb's update_dprintf_commands). As gdb's
dprintf_after_condition_true, a hit that only dprintfs share prints each one's text and
resumes without a stop record; the hit counts still go out as =breakpoint-modified.
A dprintf whose conversions all take numbers may instead be printed from records of its
values the program writes (log_spec, ptrace/patched_logs.py): no stop then, and no
=breakpoint-modified per hit (its count comes with the next stop's table).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from aliceserver.adapters.gdbcommands.printf_format import (
    DECIMAL_CLASSES,
    FLOAT_CLASSES,
    INTEGER_CLASSES,
    ArgClass,
    ArgValue,
    DecimalArg,
    StringArg,
    float_from_bits,
    parse_format,
    render,
    split_command,
    wide_text,
)
from aliceserver.adapters.mi import commands_break as breaks
from aliceserver.adapters.mi.break_keywords import keywords
from aliceserver.adapters.mi.breakpoints import DPRINTF, MiBreakpoint
from aliceserver.adapters.mi.commands_break import explicit_location, parse_int
from aliceserver.adapters.mi.locations import console_location
from aliceserver.adapters.mi.parser import getopt
from aliceserver.adapters.mi.pending_query import create_or_ask
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, MiRegistry, Reply
from aliceserver.debuggers import events as ev
from aliceserver.debuggers.logpoints import LogSpec
from aliceserver.errors import AliceError
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

logger = logging.getLogger(__name__)

_AGENT_FALLBACK = "warning: Target cannot run dprintf commands, falling back to GDB printf\n"
_CALL = "call "
_FLOAT_TYPES = ("float", "double", "long double", "_Float32", "_Float64", "_Float128")
_STRING_CHUNK = 256


# --- printf ------------------------------------------------------------------------------
def printf_text(session: MiSession, text: str, tid: int | None = None, level: int | None = None) -> str:
    """What `printf TEXT` prints. Every argument is evaluated first, as gdb does; an error
    reading a string comes after the text before it, which is then raised with it."""
    fmt, expressions = split_command(text)
    pieces = parse_format(fmt)
    wanted = [piece.arg for piece in pieces if piece.arg is not None]
    if len(wanted) != len(expressions):
        raise MiError("Wrong number of arguments for specified format-string")
    values = [_argument(session, kind, expression, tid, level) for kind, expression in zip(wanted, expressions, strict=True)]
    out: list[bytes] = []
    try:
        for chunk in render(pieces, values, lambda address: _read_string(session, address)):
            out.append(chunk)
    except AliceError as error:
        raise _Partial(b"".join(out).decode("utf-8", "replace"), str(error)) from None
    return b"".join(out).decode("utf-8", "replace")


class _Partial(MiError):
    """An error after part of printf's text was made: the text is written, then the error."""

    def __init__(self, text: str, message: str) -> None:
        super().__init__(message)
        self.text = text


def _integer(session: MiSession, expression: str, tid: int | None, level: int | None) -> int:
    shown = session.evaluate(f"(long long)({expression})", tid=tid, level=level).value
    try:
        return int(shown.split()[0], 0)
    except (ValueError, IndexError):
        raise MiError("Value can't be converted to integer.") from None


def _argument(session: MiSession, kind: ArgClass, expression: str, tid: int | None, level: int | None) -> ArgValue:
    """An argument as its conversion takes it (gdb's value_as_long, value_as_address...)."""
    if kind is ArgClass.WIDE_STRING:  # read now: the text is UTF-8 then
        held = _convenience_string(session, expression, tid, level, wide=True)
        if held is not None:
            return StringArg(literal=held)
        address = _integer(session, expression, tid, level) & (1 << 64) - 1
        return StringArg(address=0) if address == 0 else StringArg(literal=_read_wide_string(session, address))
    if kind is ArgClass.STRING:
        if expression.startswith('"') and expression.endswith('"'):  # a literal: its own bytes
            return StringArg(literal=split_command(expression)[0].encode())
        held = _convenience_string(session, expression, tid, level)
        if held is not None:
            return StringArg(literal=held)
        return StringArg(address=_integer(session, expression, tid, level) & (1 << 64) - 1)
    if kind in DECIMAL_CLASSES.values():  # gdb's value_cast to the conversion's type
        return DecimalArg(session.evaluate(f"({kind.value})({expression})", tid=tid, level=level).value)
    if kind in FLOAT_CLASSES:
        found = session.evaluate(expression, tid=tid, level=level)
        if found.type.replace("const ", "").replace("volatile ", "").strip() in _FLOAT_TYPES:
            shown = session.evaluate(f"(double)({expression})", tid=tid, level=level).value
            try:
                return float(shown.split("(")[0])
            except ValueError:
                raise MiError(f"Value can't be converted to float: {shown}") from None
        size = _integer(session, f"sizeof({expression})", tid, level)
        return float_from_bits(_integer(session, expression, tid, level), size)
    return _integer(session, expression, tid, level)


def _convenience_string(session: MiSession, expression: str, tid: int | None, level: int | None,
                        *, wide: bool = False) -> bytes | None:
    """A convenience variable holding a char array (`set $s = "abc"`; `wide`: a wchar_t,
    char16_t or char32_t one, as UTF-8): its characters up to the first NUL, as gdb's
    printf_c_string and printf_wide_c_string take them (they are in no memory to read)."""
    name = expression.strip()
    if not _CONVENIENCE().fullmatch(name):
        return None
    shown = (_WIDE_ARRAY if wide else _CHAR_ARRAY).fullmatch(session.evaluate(name, tid=tid, level=level).type)
    if shown is None:
        return None
    codes: list[int] = []
    for index in range(int(shown.group(1))):
        code = _integer(session, f"{name}[{index}]", tid, level) & (0xFFFFFFFF if wide else 0xFF)
        if code == 0:
            break
        codes.append(code)
    return wide_text(codes) if wide else bytes(codes)


_CONVENIENCE = compiled_later(r"\$[A-Za-z_][A-Za-z0-9_]*")
_CHAR_ARRAY = re.compile(r"(?:const )?(?:unsigned |signed )?char \[(\d+)\]")
_WIDE_ARRAY = re.compile(r"(?:const )?(?:wchar_t|char16_t|char32_t) \[(\d+)\]")
_WCHAR_SIZE = 4  # gdb reads %ls as wchar_t, 4 bytes on Linux


def _read_wide_string(session: MiSession, address: int) -> bytes:
    """The wchar_t string at `address` up to its NUL, as UTF-8."""
    codes: list[int] = []
    at = address
    while True:
        try:
            unit = session.debugger.read_memory(at, _WCHAR_SIZE)
        except AliceError:
            raise MiError(f"Cannot access memory at address {at:#x}") from None
        code = int.from_bytes(unit, "little")
        if code == 0:
            return wide_text(codes)
        codes.append(code)
        at += _WCHAR_SIZE


def _read_string(session: MiSession, address: int) -> bytes:
    """The C string at `address` (gdb reads it whole, up to its NUL)."""
    out = bytearray()
    at = address
    bytewise = False  # before `run` the image's sections end inside a page: read on a byte at a time
    while True:
        size = 1 if bytewise else min(_STRING_CHUNK, 4096 - at % 4096)
        try:
            chunk = session.debugger.read_memory(at, size)
        except AliceError:
            if size > 1:
                bytewise = True
                continue
            raise MiError(f"Cannot access memory at address {at:#x}") from None
        end = chunk.find(b"\0")
        if end >= 0:
            return bytes(out + chunk[:end])
        out += chunk
        at += size


def _printf(ctx: Context, text: str) -> Reply:
    if ctx.session.inferior.process is None:
        ctx.session.ensure_symbols()  # before `run`, a string is read from the program's image, as in gdb
    try:
        ctx.console(printf_text(ctx.session, text))
    except _Partial as partial:
        ctx.console(partial.text)
        raise MiError(str(partial)) from None
    return None


# --- dprintf breakpoints ---------------------------------------------------------------------
def create(ctx: Context, location: str, args: str, *, temporary: bool = False, condition: str | None = None,
           ignore: int = 0, enabled: bool = True, pending_ok: bool = False,
           thread: int | None = None, force_condition: bool = False) -> tuple[MiBreakpoint, str | None]:
    """A dprintf at `location` printing `args` (`"FORMAT",ARGS`)."""
    args = args.strip()
    if not args.startswith('"'):
        raise MiError("Bad format string, missing '\"'.")
    line = command_line(ctx.session, args, ctx.log)
    bp, problem = ctx.session.breakpoints.create(location, temporary=temporary, condition=condition, ignore=ignore,
                                                 enabled=enabled, pending_ok=pending_ok, thread=thread,
                                                 force_condition=force_condition, warn=ctx.log)
    bp.gdb_type, bp.dprintf, bp.dprintf_line = DPRINTF, args, line
    return bp, problem


def command_line(session: MiSession, args: str, warn: Callable[[str], None]) -> str:
    """gdb's update_dprintf_command_list: the command the dprintf settings make of `args`."""
    settings = session.settings
    style = settings.get("dprintf-style")
    if style == "call":
        function = settings.get("dprintf-function")
        if not function:
            raise MiError("No function supplied for dprintf call")
        channel = settings.get("dprintf-channel")
        return f"{_CALL}(void) {function} ({channel},{args})" if channel else f"{_CALL}(void) {function} ({args})"
    if style == "agent":  # no target here runs a breakpoint's commands itself
        warn(_AGENT_FALLBACK)
    return f"printf {args}"


def restyle(ctx: Context) -> None:
    """The set hook of STYLE_SETTINGS: every dprintf's line made anew (an error keeps the
    old line, the setting changed all the same, as gdb)."""
    session = ctx.session
    for bp in session.breakpoints.sorted():
        if bp.dprintf is not None:
            bp.dprintf_line = command_line(session, bp.dprintf, ctx.log)
            session.notify("breakpoint-modified", [("bkpt", session.breakpoints.tuple(bp))])


def _split_at_comma(text: str) -> tuple[str, str | None]:
    """The location before the first comma outside quotes, and what follows it."""
    quote = ""
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == ",":
            return text[:index], text[index + 1 :]
    return text, None


def _dprintf(ctx: Context, text: str) -> Reply:
    """`dprintf LOCATION,"FORMAT",ARGS` (gdb's dprintf_command)."""
    session = ctx.session
    where, args = _split_at_comma(text)
    if args is None or not args.strip():
        raise MiError("Format string required")
    location, rest = console_location(where)
    given = keywords(session, rest)
    bp = create_or_ask(ctx, lambda pending: create(ctx, location, args, condition=given.condition, thread=given.thread,
                                                   pending_ok=pending, force_condition=given.force_condition),
                       kind="dprintf")  # fmt: skip
    if bp is None:  # a pending one declined
        return None
    if ctx.from_tty:
        breaks.note_others(ctx, bp)
    ctx.console(session.breakpoints.announce(bp))
    breaks.created(ctx, bp, to_self=True)
    return None


def _mi_format(argv: list[str]) -> str:
    """gdb's mi_argv_to_format: the format word quoted back into C, the arguments after it."""
    escapes = {"\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
               "\v": "\\v", '"': '\\"'}
    quoted = "".join(escapes.get(c, c if c.isprintable() and ord(c) < 0x7F else f"\\{ord(c):o}") for c in argv[0])
    return "".join([f'"{quoted}"'] + [f",{arg}" for arg in argv[1:]])


def _dprintf_insert(ctx: Context, args: list[str]) -> Reply:
    """-dprintf-insert [-t] [-f] [-d] [-c COND] [-i N] [-p THREAD] LOCATION FORMAT ARGS..."""
    options = getopt("dprintf-insert", args, flags="thfdar", valued="cip",
                     long=("qualified", "source=", "line=", "function=", "label=", "force-condition"))
    location = explicit_location(options, "dprintf")
    words = options.rest if location else options.rest[1:]
    if not location and not options.rest:
        raise MiError("-dprintf-insert: Missing <location>")
    if options.has("h") or options.has("a"):
        raise MiError("-dprintf-insert: does not support -h or -a")
    if not words:
        raise MiError("-dprintf-insert: Missing <format>")
    location = location or options.rest[0]
    session = ctx.session
    thread = parse_int(options.get("p") or "", "thread id") if options.has("p") else None
    if thread is not None and session.inferior.tid_of(thread) is None:
        raise MiError(f"Unknown thread {thread}.")
    pending_ok = options.has("f")  # gdb's mi_cmd_break_insert_1: `set breakpoint pending` is the console's
    bp, problem = create(ctx, location, _mi_format(words), temporary=options.has("t"), condition=options.get("c"),
                         ignore=parse_int(options.get("i") or "0", "ignore count"), enabled=not options.has("d"),
                         pending_ok=pending_ok, thread=thread, force_condition=options.has("force-condition"))
    if problem and options.has("f"):
        ctx.log(problem + "\n")
    breaks.created(ctx, bp, to_self=False)
    return [("bkpt", session.breakpoints.tuple(bp))]


# --- at a hit ------------------------------------------------------------------------------------
def printed_and_resumed(session: MiSession, stop: ev.Stopped) -> bool:
    """A breakpoint stop: each dprintf hit prints its text; when only dprintfs were hit, the
    program goes on (True) and the stop is not shown. An error stops it (gdb's error in
    the printf ends its command list before `continue`)."""
    if stop.reason is not ev.StopReason.BREAKPOINT:
        return False
    hit = session.breakpoints.for_address_ids(stop.breakpoint_ids)
    printing = [bp for bp in hit if bp.dprintf is not None]
    if not printing:
        return False
    only = len(printing) == len(hit)
    for bp in printing:
        if only:  # gdb's order: each one's hit count, then its text
            session.notify("breakpoint-modified", [("bkpt", session.breakpoints.tuple(bp))])
        try:
            if bp.dprintf_line.startswith(_CALL):  # the program prints, on its own stream
                called = session.evaluate(bp.dprintf_line[len(_CALL):], tid=stop.thread_id, level=0)
                if called.error:
                    raise MiError(called.value)
            else:
                session.console_all(printf_text(session, bp.dprintf or "", tid=stop.thread_id, level=0))
        except AliceError as error:
            if isinstance(error, _Partial):
                session.console_all(error.text)
            for ui in session.uis:
                if not ui.closed:
                    ui.log(f"{error}\n")
            return False
    if not only:
        return False
    try:  # a temporary dprintf stays: gdb deletes temporaries at a stop, and there is none
        session.before_resume()
        session.debugger.resume(session.locked_thread())
    except AliceError as error:
        logger.info("the program did not go on after a dprintf: %s", error)
        return False
    return True


_NUMBERS = INTEGER_CLASSES | {ArgClass.PTR}


def logged_by(session: MiSession, bp: MiBreakpoint) -> Callable[[], LogSpec | None]:
    """The gate's `logged`: the spec of the dprintf's text as it is now, made once per text."""
    made: list[tuple[str | None, LogSpec | None]] = []

    def logged() -> LogSpec | None:
        if bp.thread is not None or bp.disable_after:  # judged at each hit by the gate
            return None
        if bp.dprintf_line.startswith(_CALL):  # a call runs in the program, at the trap
            return None
        if not made or made[0][0] != bp.dprintf:
            made[:] = [(bp.dprintf, log_spec(session, bp))]
        return made[0][1]

    return logged


def log_spec(session: MiSession, bp: MiBreakpoint) -> LogSpec | None:
    """A dprintf the engine may print from records of its values written in the program:
    one whose conversions all take integers, pointers or C strings (`%s` of an expression:
    the engine copies the string's bytes with the record, or has the hit printed at the
    trap when the string is too long for that; a literal or a convenience variable keeps
    the trap). Each value is `(long long)(ARG)`, as the trap's path takes it."""
    if bp.dprintf is None:
        return None
    try:
        fmt, expressions = split_command(bp.dprintf)
        pieces = parse_format(fmt)
        kinds = [piece.arg for piece in pieces if piece.arg is not None]
        if any(kind not in _NUMBERS and kind is not ArgClass.STRING for kind in kinds):
            return None
        if len(expressions) != len(kinds):
            return None
        strings = tuple(i for i, kind in enumerate(kinds) if kind is ArgClass.STRING)
        if any(expressions[i].startswith(('"', "$")) for i in strings):
            return None  # its bytes are in no memory the program could copy
        values = tuple(session.debugger.expression_condition(f"(long long)({e})") for e in expressions)
    except AliceError:
        return None

    def text(numbers: tuple[int, ...], copied: tuple[bytes, ...]) -> str:
        bp.logged_hits.append(None)  # each record is one hit the program let go
        arguments: list[ArgValue] = list(numbers)
        read: dict[int, bytes] = {}
        for position, data in zip(strings, copied, strict=True):
            address = numbers[position] & (1 << 64) - 1
            arguments[position] = StringArg(address=address)
            read[address] = data
        return b"".join(render(pieces, arguments, read.__getitem__)).decode("utf-8", "replace")

    return LogSpec(f"dprintf {bp.number}", values, text, batched=True, strings=strings)


def register(registry: MiRegistry) -> None:
    registry.add("dprintf-insert", _dprintf_insert)


def _eval(ctx: Context, text: str) -> Reply:
    """gdb's eval: printf's text of the arguments, a running user command's arguments put
    in it, then run as a command."""
    from aliceserver.adapters.mi.control_commands import run_commands  # it runs console commands
    from aliceserver.adapters.mi.user_commands import insert_current_arguments

    line = insert_current_arguments(ctx, printf_text(ctx.session, text).rstrip("\n"))
    return run_commands(ctx, [line], breakpoint_list=False)


def register_console(registry: CliRegistry) -> None:
    registry.add("printf", _printf)
    registry.add("eval", _eval)
    registry.add("dprintf", _dprintf)
