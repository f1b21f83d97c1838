"""gdb's `with SETTING [VALUE] [-- COMMAND]` (alias `w`): the setting takes VALUE for the
one command and its own value back after it, even when the command fails (gdb's
with_command_1). The setting is set and restored through `set`, so whatever a `set`
does besides (the engine's print limits, =cmd-param-changed) happens both ways."""

from __future__ import annotations

from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.adapters.mi.settings_policy import canonical
from aliceserver.adapters.mi.source_paths import directories_sentence
from aliceserver.errors import AliceError

# Settings `set` keeps outside the settings table: how to read each one's value back.
_OWN_VALUES = ("args", "cwd", "directories")


def _current(ctx: Context, text: str) -> tuple[str, str]:
    """(the setting's name, its value as `set NAME VALUE` takes it) for the setting `text`
    starts with; gdb's lookup_cmd error for one that is no setting."""
    session = ctx.session
    words = text.split()
    if words and words[0] in _OWN_VALUES:
        inferior = session.inferior
        if words[0] == "directories":
            return words[0], directories_sentence(ctx)[0]
        return words[0], (inferior.args_text or "") if words[0] == "args" else inferior.cwd
    found = session.settings.find(canonical(session.settings, words))
    if found is None:
        raise MiError(_undefined(ctx, text))
    name, _ = found
    return name, session.settings.get(name)


def _undefined(ctx: Context, text: str) -> str:
    """gdb's words for a setting it does not know: the prefix it knows (`set print`), then
    the rest of the line (only the word itself at the top)."""
    words = text.split()
    names = [name.split() for name in ctx.session.settings.names()]
    prefix: list[str] = []
    while len(prefix) < len(words) and any(name[: len(prefix) + 1] == words[: len(prefix) + 1]
                                           and len(name) > len(prefix) + 1 for name in names):  # fmt: skip
        prefix.append(words[len(prefix)])
    rest = text.strip()
    for word in prefix:
        rest = rest[len(word) :].lstrip()
    if not prefix:
        rest = words[0] if words else ""
    where = " ".join(["set", *prefix])
    return f'Undefined {where} command: "{rest}".  Try "help {where}".'


def with_command(ctx: Context, text: str) -> Reply:
    from aliceserver.adapters.mi.console import run_console_command

    if not text.strip():
        raise MiError("Missing arguments.")
    delim = text.find("--")
    if delim == 0:
        raise MiError("Missing setting before '--' delimiter")
    if delim < 0 or not text[delim + 2 :].strip():
        raise MiError("No previous command to relaunch")  # gdb repeats the last one typed: none here
    name, old = _current(ctx, text)
    value, command = text[:delim].lstrip(), text[delim + 2 :].strip()
    for word in value.split()[: len(name.split())]:  # as typed: `print elem 2`
        value = value[len(word) :].lstrip()  # the rest as is, to `--` (gdb's args keep a blank)
    run_console_command(ctx, f"set {name} {value}")
    try:
        run_console_command(ctx, command)
    finally:
        try:
            run_console_command(ctx, f"set {name} {old}")
        except AliceError as error:
            ctx.log(f"warning: Couldn't restore setting: {error}\n")
    return None


def register(registry: CliRegistry) -> None:
    registry.add("with", with_command, "w")
