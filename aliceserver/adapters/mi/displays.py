"""gdb's auto-display (`display`, `undisplay`, `info display`, `enable/disable display`).

As in gdb (printcmd.c), a display that names a local variable or an argument is tied to the
function it was created in (gdb's innermost block): at a stop in another function it is
skipped quietly until that function is selected again, and `info display` says it "cannot
be evaluated in the current context". A display with a size or the i/s format
(`display/i $pc`) shows memory the way `x` does; the others print a value (`display/x n`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aliceserver.adapters.gdbcommands.examine import examine
from aliceserver.adapters.gdbcommands.selection import ExamineMemory, Selection
from aliceserver.adapters.mi import number_ranges
from aliceserver.adapters.mi.queries import query
from aliceserver.adapters.mi.registry import Context, MiError, Reply
from aliceserver.debuggers.model import VariableScope
from aliceserver.errors import AliceError
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

_FORMAT = compiled_later(r"/(-?)(\d*)([a-z]*)\s*")
_PRINT_FORMATS = set("xduotacfz")
_SIZES = set("bhwg")
# Names in an expression that are no variables: C's keywords and type words.
_NOT_VARIABLES = {
    "sizeof", "struct", "union", "enum", "unsigned", "signed", "int", "char", "long", "short", "float",
    "double", "void", "const", "volatile", "_Bool", "bool", "true", "false", "alignof", "_Alignof",
}  # fmt: skip
_NAME = compiled_later(r"""'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|(->|\.|\$|::)?\s*([A-Za-z_]\w*)""")


@dataclass
class Display:
    number: int
    expression: str  # after the format
    format: str = ""  # the letter: "" natural
    size: str = ""  # b h w g: shown the way `x` shows memory
    count: int = 1
    function: str | None = None  # the function whose locals it names; None: anywhere
    names: frozenset[str] = frozenset()  # those locals (a nested block may end before the function)
    enabled: bool = True
    raw: bool = False  # /r: no pretty printer (not shown, as in gdb)

    @property
    def examines(self) -> bool:
        return bool(self.size)

    def typed_format(self) -> str:
        """The format as `info display` shows it: `/x `, `/1bi `."""
        if self.examines:
            return f"/{self.count}{self.size}{self.format} "
        return f"/{self.format} " if self.format else ""


@dataclass
class DisplayTable:
    entries: dict[int, Display] = field(default_factory=dict)
    next_number: int = 1


def _parse_format(text: str) -> tuple[str, str, int, bool, str]:
    """`/FMT EXPR` as gdb's display_command decodes it (decode_format: a count, then size
    letters, `r` and any other lowercase letter as the format, the last one winning; a
    letter no format knows is its error at each display): (format, size, count, raw,
    expression)."""
    match = _FORMAT().match(text)
    if match is None:
        return "", "", 1, False, text
    sign, digits, letters = match.groups()
    count = (-1 if sign else 1) * (int(digits) if digits else 1)
    fmt = size = ""
    raw = False
    for letter in letters:
        if letter in _SIZES:
            size = letter
        elif letter == "r":
            raw = True
        else:
            fmt = letter
    if size and not fmt:
        fmt = "x"
    if fmt in ("i", "s"):
        size = "b"
    return fmt, size, count, raw, text[match.end() :]


def _variable_names(expression: str) -> set[str]:
    """The names an expression may read as variables (not members, registers, keywords)."""
    names = set()
    for match in _NAME().finditer(expression):
        prefix, name = match.group(1), match.group(2)
        if name and not prefix and name not in _NOT_VARIABLES:
            names.add(name)
    return names


def _frame_names(session: MiSession) -> tuple[str | None, set[str]] | None:
    """The selected frame's function and the names of its locals and arguments visible at
    its pc; None when no program is stopped."""
    inferior = session.inferior
    if inferior.process is None or inferior.running or inferior.selected_tid is None:
        return None
    tid, level = inferior.selected_tid, inferior.selected_level
    try:
        frame = session.frames.frame(tid, level)
        names = {
            info.name
            for scope in (VariableScope.LOCALS, VariableScope.ARGUMENTS)
            for info in session.debugger.frame_variables(tid, level, scope, aggregate_values=False)
        }
    except AliceError:
        return None
    return frame.function, names


def in_scope(session: MiSession, display: Display) -> bool:
    """gdb's within_current_scope: the display's block holds the selected frame's."""
    if display.function is None:
        return True
    where = _frame_names(session)
    if where is None:
        return False
    function, names = where
    return function == display.function and display.names <= names


def add(ctx: Context, text: str) -> Reply:
    """`display [/FMT] EXPR`; without an argument, show every display now."""
    session = ctx.session
    if not text:
        ctx.console(stop_text(session))
        return None
    fmt, size, count, raw, expression = _parse_format(text)
    if not expression.strip():
        raise MiError("Argument required (expression to compute).")
    display = Display(0, expression, fmt, size, count, raw=raw)
    where = _frame_names(session)
    try:  # gdb parses it now: a name that is nowhere refuses the display
        session.evaluate(expression)
    except AliceError as error:
        if str(error).startswith("No symbol "):
            raise
    if where is not None:
        function, names = where
        locals_named = _variable_names(expression) & names
        if locals_named:
            display.function, display.names = function, frozenset(locals_named)
    table = session.displays
    display.number = table.next_number
    table.next_number += 1
    table.entries[display.number] = display
    # gdb shows a new display at once only to a person, before `run` too (a static's value
    # from the file, `<error: No registers.>` for $pc)
    if ctx.from_tty and not session.inferior.running:
        ctx.console(one_text(session, display))
    return None


def _each(ctx: Context, text: str) -> Iterator[Display]:
    """The displays `text` names (gdb's map_display_numbers), saying which it lacks."""
    table = ctx.session.displays
    for number, at in number_ranges.numbers(ctx, text):
        if number == 0:
            ctx.log(f"warning: bad display number at or near '{at}'\n")
        elif number not in table.entries:
            ctx.console(f"No display number {number}.\n")
        else:
            yield table.entries[number]


def remove(ctx: Context, text: str) -> Reply:
    """`undisplay [N...]` (also `delete display`): gdb only says which numbers it lacks."""
    table = ctx.session.displays
    if not text.strip():
        if query(ctx, "Delete all auto-display expressions? "):
            table.entries.clear()
        return None
    for display in _each(ctx, text):
        table.entries.pop(display.number, None)
    return None


def enable(ctx: Context, text: str, enabled: bool) -> Reply:
    """`enable display [N...]`, `disable display [N...]`."""
    table = ctx.session.displays
    for display in _each(ctx, text) if text.strip() else list(table.entries.values()):
        display.enabled = enabled
    return None


def info(ctx: Context) -> None:
    """`info display`."""
    session = ctx.session
    table = session.displays
    if not table.entries:
        ctx.console("There are no auto-display expressions now.\n")
        return
    lines = ["Auto-display expressions now in effect:\nNum Enb Expression\n"]
    for display in table.entries.values():
        away = "" if in_scope(session, display) else " (cannot be evaluated in the current context)"
        enabled = "y" if display.enabled else "n"
        lines.append(f"{display.number}:   {enabled}  {display.typed_format()}{display.expression}{away}\n")
    ctx.console("".join(lines))


def stop_text(session: MiSession) -> str:
    """Every enabled display in scope, as gdb shows them at a stop."""
    return "".join(
        one_text(session, display)
        for display in list(session.displays.entries.values())
        if display.enabled and in_scope(session, display)
    )


def one_text(session: MiSession, display: Display) -> str:
    """One display's lines (gdb's do_one_display)."""
    head = f"{display.number}: "
    if not display.examines:
        fmt = f"/{display.format} " if display.format else ""
        try:
            if display.format and display.format not in _PRINT_FORMATS:  # gdb's print_scalar_formatted
                raise MiError(f'Undefined output format "{display.format}".')
            letters = display.format + ("r" if display.raw else "")  # the engine's: /xr raw
            value = session.evaluate(display.expression, letters or None).value
        except AliceError as error:
            value = f"<error: {error}>"
        return f"{head}{fmt}{display.expression} = {value}\n"
    letters = ("" if display.count == 1 else str(display.count)) + display.format
    if display.format not in ("i", "s"):
        letters += display.size
    between = "\n" if display.count != 1 or display.format == "i" else "  "
    out = [f"{head}x/{letters} {display.expression}{between}"]
    inferior = session.inferior
    stopped = inferior.process is not None and not inferior.running and inferior.selected_tid is not None
    where = Selection(inferior.selected_tid, inferior.selected_level) if stopped else Selection(None)
    size = "" if display.format in ("i", "s") else display.size
    try:  # memory of its own: a display leaves what `x` remembers alone
        examine(session.debugger, where, ExamineMemory(), f"/{display.count}{display.format}{size} "
                f"{display.expression}", out.append)
    except AliceError as error:
        out.append(f"<error: {error}>\n")
    return "".join(out)
