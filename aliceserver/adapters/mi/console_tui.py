"""gdb's TUI commands, answered as gdb 13 answers them where its output is not a terminal
(a pipe, MI, -batch): what would enable the TUI is refused with "Cannot enable the TUI when
output is not a terminal", `info win` says the TUI is not active, `tui disable` has nothing
to do, prefixes without a subcommand list theirs, `update` shows the frame as gdb does
without the TUI. Also the checkpoint commands (gdb's fork-based checkpoints are not made
here, so none ever exists and `checkpoint` itself is refused) and `explore`."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply

NOT_A_TERMINAL = "Cannot enable the TUI when output is not a terminal"
_FOOTER = ('Type "apropos word" to search for commands related to "word".\n'
           'Type "apropos -v word" for full documentation of commands related to "word".\n'
           "Command name abbreviations are allowed if unambiguous.\n")
_LISTS = {
    "tui": [("disable", "Disable TUI display mode."), ("enable", "Enable TUI display mode."),
            ("focus, fs, focus", "Set focus to named window or next/prev window."),
            ("layout, layout", "Change the layout of windows."), ("new-layout", "Create a new TUI layout."),
            ("refresh, refresh", "Refresh the terminal display."),
            ("reg", "TUI command to control the register window."),
            ("window", "Text User Interface window commands.")],
    "tui layout": [("asm", 'Apply the "asm" layout.'), ("next", "Apply the next TUI layout."),
                   ("prev", "Apply the previous TUI layout."), ("regs", "Apply the TUI register layout."),
                   ("split", 'Apply the "split" layout.'), ("src", 'Apply the "src" layout.')],
    "tui window": [("height, wh, winheight", "Set or modify the height of a specified window."),
                   ("width, winwidth", "Set or modify the width of a specified window.")],
}
_REG_USAGE = ('"tui reg" must be followed by the name of either a register group,\n'
              "or one of 'next' or 'prev'.  Known register groups are:\n"
              "general, float, system, vector, all, save, restore, sse, mmx\n")


def _list(ctx: Context, prefix: str) -> None:
    rows = "".join(f"{prefix} {name} -- {doc}\n" for name, doc in _LISTS[prefix])
    ctx.console(f"List of {prefix} subcommands:\n\n{rows}\n"
                f'Type "help {prefix}" followed by {prefix} subcommand name for full documentation.\n' + _FOOTER)


def _refuse(ctx: Context, text: str) -> Reply:
    raise MiError(NOT_A_TERMINAL)


def _subcommand(prefix: str, word: str) -> str | None:
    names = [name.split(",")[0] for name, _doc in _LISTS[prefix]]
    found = [name for name in names if name == word] or [name for name in names if name.startswith(word)]
    return found[0] if len(found) == 1 else None


def _layout(ctx: Context, text: str) -> Reply:
    word = text.split()[0] if text.split() else ""
    if not word:
        _list(ctx, "tui layout")
        return None
    if _subcommand("tui layout", word) is None:
        raise MiError(f'Undefined tui layout command: "{text.strip()}".  Try "help tui layout".')
    raise MiError(NOT_A_TERMINAL)


def _window(ctx: Context, text: str) -> Reply:
    word = text.split()[0] if text.split() else ""
    if word in ("wh", "winheight", "winwidth") or (word and _subcommand("tui window", word)):
        raise MiError(NOT_A_TERMINAL)
    _list(ctx, "tui window")
    return None


def _reg(ctx: Context, text: str) -> Reply:
    if not text.strip():
        ctx.console(_REG_USAGE)
        return None
    raise MiError(NOT_A_TERMINAL)


def _new_layout(ctx: Context, text: str) -> Reply:
    if not text.strip():
        raise MiError("No layout name specified")
    raise MiError('"tui new-layout" is not supported by aliceserver.')


def _tui(ctx: Context, text: str) -> Reply:
    word, _, rest = text.strip().partition(" ")
    if not word:
        _list(ctx, "tui")
        return None
    handlers: dict[str, Callable[[Context, str], Reply]] = {
        "disable": lambda c, t: None, "enable": _refuse, "focus": _refuse, "layout": _layout,
        "new-layout": _new_layout, "refresh": _refuse, "reg": _reg, "window": _window}
    name = "focus" if word == "fs" else _subcommand("tui", word)
    if name is None:
        raise MiError(f'Undefined tui command: "{text.strip()}".  Try "help tui".')
    return handlers[name](ctx, rest.strip())


def info_win(ctx: Context, text: str) -> None:
    ctx.console("The TUI is not active.\n")


def _update(ctx: Context, text: str) -> Reply:
    if ctx.session.inferior.process is None:
        raise MiError("No registers.")
    found = ctx.session.cli_commands.lookup("frame")  # gdb's print_stack_frame, source and location
    assert found is not None
    return found[1](ctx, "")


def _checkpoint(ctx: Context, text: str) -> Reply:
    if ctx.session.inferior.process is None:
        raise MiError("The program is not being run.")
    raise MiError('"checkpoint" is not supported by aliceserver.')


def _checkpoint_id(ctx: Context, text: str) -> str:
    session = ctx.session
    inferior = session.inferior
    stopped = inferior.process is not None and inferior.selected_tid is not None
    info = session.debugger.evaluate(text.strip(), inferior.selected_tid if stopped else None,
                                     inferior.selected_level if stopped else 0, calls=stopped)  # fmt: skip
    if info.error:
        raise MiError(info.value)
    return info.value.split()[0]


def _restart(ctx: Context, text: str) -> Reply:
    if not text.strip():
        raise MiError("Requires argument (checkpoint id to restart)")
    raise MiError(f"Not found: checkpoint id {_checkpoint_id(ctx, text)}")  # none is ever made


def no_checkpoint(ctx: Context, verb: str, text: str) -> Reply:
    """`delete checkpoint N` / `detach checkpoint N`: no checkpoint is ever made."""
    if not text.strip():
        raise MiError(f"Requires argument (checkpoint id to {verb})")
    raise MiError(f"No such checkpoint id, {_checkpoint_id(ctx, text)}")


def info_checkpoints(ctx: Context, text: str) -> None:
    ctx.console("No checkpoints.\n")


def _explore(ctx: Context, text: str) -> Reply:
    if not text.strip():
        raise MiError("ERROR: 'explore' requires an argument.")
    raise MiError('"explore" is not supported by aliceserver.')  # gdb's asks questions at a prompt


def register(registry: CliRegistry) -> None:
    add = registry.add
    add("tui", _tui)
    add("layout", _layout, "la")
    add("focus", _refuse, "fs")
    add("refresh", _refuse)
    add("winheight", _refuse, "wh")
    add("winwidth", _refuse)
    add("update", _update)
    add("checkpoint", _checkpoint)
    add("restart", _restart)
    add("explore", _explore)
