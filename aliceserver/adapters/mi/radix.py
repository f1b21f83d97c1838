"""gdb's `set radix`, `set input-radix` and `set output-radix`, with gdb's messages.

The output radix is honoured by the engine's formatter (integers, characters and booleans
in hex or octal, as gdb's output_format), the input radix by its expression reader."""

from __future__ import annotations

from aliceserver.adapters.mi import settings_policy
from aliceserver.adapters.mi.registry import Context, MiError

NAMES = ("radix", "input-radix", "output-radix")


def _number(ctx: Context, text: str) -> int:
    """The argument as gdb's parse_and_eval_long reads it: an expression."""
    info = ctx.session.evaluate(text)
    if info.error:
        raise MiError(info.value)
    word = info.value.split()[0] if info.value.split() else ""
    try:
        if len(word) > 1 and word.startswith("0") and word[1] in "01234567":
            return int(word, 8)  # the output radix's octal
        return int(word, 0)
    except ValueError:
        raise MiError(f'Invalid number "{text}".') from None


def _sentence(radix: int) -> str:
    return f"decimal {radix}, hex {radix:x}, octal {radix:o}"


def set_radix(ctx: Context, name: str, text: str, *, from_tty: bool) -> None:
    """gdb's set_radix, set_input_radix and set_output_radix: the output radix must be 8,
    10 or 16, the input radix at least 2; `set radix` alone is 10."""
    if not text.strip():
        if name != "radix":
            raise MiError("Argument required (integer to set it to).")
        radix = 10
    else:
        radix = _number(ctx, text)
    if name != "input-radix" and radix not in (8, 10, 16):
        raise MiError(f"Unsupported output radix ``decimal {radix}''; output radix unchanged.")
    if name != "output-radix" and radix < 2:
        raise MiError(f"Nonsense input radix ``decimal {radix}''; input radix unchanged.")
    session = ctx.session
    if name != "input-radix":
        session.settings.set("output-radix", str(radix))
        settings_policy.apply_print_limits(session)
    if name != "output-radix":
        session.settings.set("input-radix", str(radix))
        settings_policy.apply_print_limits(session)
    if from_tty:
        what = {"radix": "Input and output radices", "input-radix": "Input radix",
                "output-radix": "Output radix"}[name]
        ctx.console(f"{what} now set to {_sentence(radix)}.\n")


def show_radix(ctx: Context, *, from_tty: bool) -> None:
    """gdb's show radix, which speaks only to a person (from_tty)."""
    if not from_tty:
        return
    settings = ctx.session.settings
    given, shown = int(settings.get("input-radix")), int(settings.get("output-radix"))
    if given == shown:
        ctx.console(f"Input and output radices set to {_sentence(given)}.\n")
    else:
        ctx.console(f"Input radix set to {_sentence(given)}.\nOutput radix set to {_sentence(shown)}.\n")
