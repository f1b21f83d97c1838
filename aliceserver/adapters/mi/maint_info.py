"""gdb's `maintenance info breakpoints` (`maint`, `mt`): the user's breakpoints as `info
breakpoints` shows them, each followed by what the engine made of it where that is more
than a trap: a jump patch judging its condition in the program, or why it keeps its trap
(`patch refused: ...`, see debuggers/ptrace/patched_breakpoints.py). `info breakpoints`
itself stays gdb's, line for line."""

from __future__ import annotations

from aliceserver.adapters.mi.breakpoints import MiBreakpoint
from aliceserver.adapters.mi.console_info import info_breakpoints
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply


def _maintenance(ctx: Context, text: str) -> Reply:
    words = text.split(None, 2)
    if not words:
        raise MiError('"maintenance" must be followed by the name of a maintenance command.')
    if words[0] in ("deprecate", "undeprecate"):
        from aliceserver.adapters.mi.deprecation import deprecate

        deprecate(ctx, text.strip()[len(words[0]):], words[0] == "deprecate")
        return None
    if words[0] != "info":
        raise MiError(f'Undefined maintenance command: "{words[0]}".  Try "help maintenance".')
    if len(words) > 1 and len(words[1]) > 1 and "sections".startswith(words[1]):
        from aliceserver.adapters.mi.console_files import maint_info_sections

        maint_info_sections(ctx, words[2] if len(words) > 2 else "")
        return None
    if len(words) < 2 or not "breakpoints".startswith(words[1]):
        asked = words[1] if len(words) > 1 else ""
        raise MiError(
            f'Undefined maintenance info command: "{asked}".  Try "help maintenance info".'
        )
    notes = {info.id: info.note for info in ctx.session.debugger.breakpoints() if info.note}

    def noted(bp: MiBreakpoint) -> list[str]:
        return [notes[ident] for ident in bp.address_ids if ident in notes]

    info_breakpoints(ctx, words[2] if len(words) > 2 else "", notes=noted)
    return None


def register(registry: CliRegistry) -> None:
    registry.add("maintenance", _maintenance, "maint", "mt")
