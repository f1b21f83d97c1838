"""gdb's `info vtbl EXPR`: the virtual function tables of a C++ object (gnuv3_print_vtable)."""

from __future__ import annotations

from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.debuggers.model import VtableInfo

NO_VTABLE = "This object does not have a virtual function table\n"  # printed, not an error


def format_vtables(tables: list[VtableInfo]) -> str:
    """gdb's text: one block per vtable, a blank line between them."""
    blocks = []
    for table in tables:
        lines = [f"vtable for '{table.class_name}' @ {table.address:#x} (subobject @ {table.subobject:#x}):\n"]
        for index, slot in enumerate(table.slots):
            if slot.address is None:
                lines.append(f"<error: {slot.error}>\n")
            else:
                symbol = f" <{slot.symbol}>" if slot.symbol else ""
                lines.append(f"[{index}]: {slot.address:#x}{symbol}\n")
        blocks.append("".join(lines))
    return "\n".join(blocks) if blocks else NO_VTABLE


def info_vtbl(ctx: Context, text: str) -> None:
    if not text.strip():
        raise MiError("Argument required (expression to compute).")
    session = ctx.session
    session.evaluate(text)  # gdb's errors for the expression itself, with or without a process
    tid, level = session.selected_frame()
    ctx.console(format_vtables(session.debugger.vtables(text, tid, level)))
