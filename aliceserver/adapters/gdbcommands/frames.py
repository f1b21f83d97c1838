"""Which frames gdb shows of a stack."""

from __future__ import annotations

from collections.abc import Sequence

from aliceserver.adapters.gdbcommands.quoting import unquoted
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.model import StackFrame
from aliceserver.errors import AliceError, ProtocolError, Unsupported


def frames_to_main(frames: Sequence[StackFrame]) -> list[StackFrame]:
    """The frames up to the program's main function (gdb's `backtrace past-main off`):
    for Rust `crate::main`, not the runtime's `lang_start` and `catch_unwind` below it."""
    for index, frame in enumerate(frames):
        if frame.program_main:
            return list(frames[: index + 1])
    return list(frames)


def past_main(frames: Sequence[StackFrame]) -> set[int]:
    """The levels of the frames below the program's main function (the runtime's)."""
    for index, frame in enumerate(frames):
        if frame.program_main:
            return {f.level for f in frames[index + 1 :]}
    return set()


def frame_level(debugger: IDebugger, thread_id: int, level: int, argument: str) -> int:
    """The level gdb's `frame ARGUMENT` selects from `level`: `level N`, `function NAME`
    (the innermost frame in it), `address STACK-ADDRESS` (the frame at that CFA), or a
    level as an expression; nothing: `level` itself. ProtocolError with gdb's words."""
    word, _, rest = argument.strip().partition(" ")
    rest = rest.strip()
    if not word:
        return level
    frames = frames_to_main(debugger.stack_trace(thread_id))
    if word == "function":
        if not rest:
            raise ProtocolError("Missing function name argument")
        places = debugger.resolve_location(rest)
        if not places:
            raise ProtocolError(f'Function "{unquoted(rest)}" not defined.')
        entries = {_entry(debugger, place.address) for place in places}
        for frame in frames:
            if _frame_entry(debugger, frame) in entries:
                return frame.level
        raise ProtocolError(f'No frame for function "{rest}".')
    if word == "address":
        address = _number(debugger, thread_id, level, rest)
        for frame in frames:
            if frame.cfa == address:
                return frame.level
        raise ProtocolError(f"No frame at address {rest}.")
    if word == "view":
        raise Unsupported('"frame view" is not supported by aliceserver.')
    wanted = _number(debugger, thread_id, level, rest if word == "level" else argument.strip())
    if not any(frame.level == wanted for frame in frames):
        raise ProtocolError(f"No frame at level {rest if word == 'level' else argument.strip()}.")
    return wanted


def _number(debugger: IDebugger, thread_id: int, level: int, expression: str) -> int:
    """An expression's value as gdb's value_as_long."""
    if not expression:
        raise ProtocolError("Argument required (expression to compute).")
    if expression.isdigit():
        return int(expression)
    info = debugger.evaluate(expression, thread_id, level)
    if info.error:
        raise ProtocolError(info.value)
    text = info.value
    if text.startswith("(") and ") " in text:  # `(int *) 0x...`
        text = text[text.index(") ") + 2 :]
    try:
        return int(text.split()[0], 0)
    except (ValueError, IndexError):
        raise ProtocolError("Invalid cast.") from None


def _frame_entry(debugger: IDebugger, frame: StackFrame) -> int:
    """The entry of the frame's function: its ELF symbol's, else (a static function only
    the DWARF names, libc's __pthread_kill_implementation) the name lookup's at its pc."""
    symbol = frame.symbol
    if symbol.name:
        return symbol.address - symbol.offset
    return _entry(debugger, symbol.address)


def _entry(debugger: IDebugger, address: int) -> int:
    try:
        symbol = debugger.lookup_address(address)
    except AliceError:
        return address
    return address - symbol.offset if symbol.name else address
