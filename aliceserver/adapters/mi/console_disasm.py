"""The console's `disassemble [/MODIFIERS] [START[,END | ,+LENGTH]]` as gdb 13's
disassemble_command prints it: /r and /b raw bytes, /m source order, /s address order."""

from __future__ import annotations

from aliceserver.adapters.mi.disasm import Line, PartialDisassembly, address_of, function_at
from aliceserver.adapters.mi.disasm_source import SourceGroup, SourceMode, gdb_disassembly
from aliceserver.adapters.mi.frames import hex16
from aliceserver.adapters.mi.registry import Context, MiError, Reply
from aliceserver.debuggers.base import FunctionRanges
from aliceserver.errors import AliceError

# x86's libopcodes lays out raw bytes for 7-byte instructions (its bytes_per_line): shorter
# ones are padded so the instruction text lines up.
_BYTES_PER_LINE = 7


def disassemble_command(ctx: Context, text: str) -> Reply:
    session = ctx.session
    text = text.strip()
    raw = False
    deprecated = source = False
    if text.startswith("/"):
        word, _, text = text[1:].partition(" ")
        text = text.strip()
        if not word:
            raise MiError("Missing modifier.")
        for modifier in word:
            if modifier not in "mrbs":
                raise MiError("Invalid disassembly modifier.")
        raw = "r" in word or "b" in word
        deprecated, source = "m" in word, "s" in word
    if deprecated and source:
        raise MiError("Cannot specify both /m and /s.")
    mode = SourceMode.DEPRECATED if deprecated else SourceMode.SOURCE if source else SourceMode.NONE
    pc = None
    if session.inferior.process is not None and not session.inferior.running:
        tid, level = session.selected_frame()
        pc = session.frames.frame(tid, level).pc
    name: str | None
    if not text:
        if pc is None:
            raise MiError("No frame selected.")
        name, low, high = _function(_function_lines(ctx, pc, "No function contains program counter for selected frame."))
    elif "," in text:
        left, right = (part.strip() for part in text.split(",", 1))
        low = address_of(session, left)
        high = low + address_of(session, right[1:]) if right.startswith("+") else address_of(session, right)
        name = None
    else:
        name, low, high = _function(_function_lines(ctx, address_of(session, text), "No function contains specified address."))
    ranges = _ranges(ctx, low) if name is not None else None
    if ranges is not None:  # a function in pieces: named by its entry's symbol
        name = _function(_function_lines(ctx, ranges[0][0], "No function contains specified address."))[0]
    ctx.console(f"Dump of assembler code for function {name}:\n" if name is not None
                else f"Dump of assembler code from {low:#x} to {high:#x}:\n")
    if ranges is None:
        _print_range(ctx, low, high, mode, pc, raw, name is not None)
    else:  # gdb's print_disassembly for a block not contiguous
        for start, end in ranges:
            ctx.console(f"Address range {start:#x} to {end:#x}:\n")
            _print_range(ctx, start, end, mode, pc, raw, True, entry=ranges[0][0])
    ctx.console("End of assembler dump.\n")
    return None


def _ranges(ctx: Context, address: int) -> list[tuple[int, int]] | None:
    """The ranges of the function holding `address` when it has more than one (gcc's f
    and f.cold); None for a function in one piece or without debug info."""
    debugger = ctx.session.debugger
    try:
        ranges = debugger.function_ranges(address) if isinstance(debugger, FunctionRanges) else None
    except AliceError:
        return None
    return ranges if ranges is not None and len(ranges) > 1 else None


def _print_range(
    ctx: Context, low: int, high: int, mode: SourceMode, pc: int | None, raw: bool, omit_name: bool,
    entry: int | None = None,
) -> None:
    try:
        items = gdb_disassembly(ctx.session, low, high, -1, mode)
    except PartialDisassembly as failed:
        if mode is not SourceMode.NONE and failed.lines:  # (the source groups: not shown)
            raise
        for line in failed.lines:  # gdb's dump_insns shows them, then the address it failed at
            ctx.console(_insn_line(line, pc, raw, omit_name, entry))
        ctx.console(f"{'=> ' if failed.address == pc else '   '}0x{failed.address:016x}:\t\n")
        raise
    for item in items:
        if isinstance(item, SourceGroup):
            _print_group(ctx, item, pc, raw, omit_name, entry)
        else:
            ctx.console(_insn_line(item, pc, raw, omit_name, entry))


def _function_lines(ctx: Context, address: int, missing: str) -> list[Line]:
    try:
        return function_at(ctx.session, address)
    except (MiError, AliceError):
        raise MiError(missing) from None


def _function(lines: list[Line]) -> tuple[str, int, int]:
    last = lines[-1].insn
    return lines[0].func or "??", lines[0].insn.address, last.address + last.size


def _print_group(
    ctx: Context, group: SourceGroup, pc: int | None, raw: bool, omit_name: bool, entry: int | None = None
) -> None:
    ctx.console(group.before)
    if group.path is None:
        ctx.console("--- no source info for this pc ---\n")
    else:
        text = ctx.session.frames.line_text(group.path, group.line)
        shown = text if text is not None else f"in {ctx.session.frames.file_name(group.path)}"
        ctx.console(f"{group.line}\t{shown}\n")
    for line in group.insns:
        ctx.console(_insn_line(line, pc, raw, omit_name, entry))
    ctx.console(group.after)


def _insn_line(line: Line, pc: int | None, raw: bool, omit_name: bool, entry: int | None = None) -> str:
    """`entry`: a function in pieces, whose every instruction gdb names from its entry
    (`<-313>` in f.cold: the function's symbol wins over the ELF one in a function's dump)."""
    mark = "=> " if line.insn.address == pc else "   "
    if entry is not None:
        where = f" <{line.insn.address - entry:+d}>"
    elif omit_name:
        where = f" <+{line.offset}>" if line.func else ""
    else:
        where = f" <{line.func}{line.offset:+d}>" if line.func else ""
    opcodes = ""
    if raw:
        size = len(line.insn.raw)
        padding = 3 * (_BYTES_PER_LINE - size) - 1 if size < _BYTES_PER_LINE else 0
        opcodes = " ".join(f"{b:02x}" for b in line.insn.raw) + " " * padding + "\t"
    return f"{mark}{hex16(line.insn.address)}{where}:\t{opcodes}{line.text}\n"
