"""gdb's `info probes [all|stap|dtrace] [PROVIDER [NAME [OBJECT]]]`: the static probes of
the loaded images (SystemTap SDT notes; no DTrace), as gdb's info_probes_for_spops lays
out its table: each column as wide as its widest cell, every cell followed by a blank."""

from __future__ import annotations

import re

from aliceserver.adapters.mi.frames import hex16
from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.debuggers.model import StaticProbe

_KINDS = ("all", "stap", "dtrace")  # gdb's subcommands of `info probes`


def _pattern(text: str, what: str) -> re.Pattern[str] | None:
    if not text:
        return None
    try:
        return re.compile(text)
    except re.error:
        raise MiError(f"Invalid {what} regexp") from None


def _selected(probes: list[StaticProbe], words: list[str]) -> list[StaticProbe]:
    """gdb's collect_probes: each given word a regexp searched in its field."""
    provider, name, objfile = (words + ["", "", ""])[:3]
    patterns = (_pattern(provider, "provider"), _pattern(name, "probe"), _pattern(objfile, "object file"))
    provider_re, name_re, object_re = patterns
    return [
        probe for probe in probes
        if (provider_re is None or provider_re.search(probe.provider))
        and (name_re is None or name_re.search(probe.name))
        and (object_re is None or object_re.search(probe.object_path))
    ]  # fmt: skip


def info_probes(ctx: Context, text: str) -> None:
    words = text.split()
    kind = "all"
    if words:  # gdb's `info probes` takes its filters only after a subcommand
        chosen = [k for k in _KINDS if k.startswith(words[0])]
        if len(chosen) != 1:
            raise MiError(f'Undefined info probes command: "{text.strip()}".  Try "help info probes".')
        kind, words = chosen[0], words[1:]
    probes = [] if kind == "dtrace" else ctx.session.debugger.static_probes()
    shown = sorted(_selected(probes, words), key=lambda p: (p.provider, p.name, p.address, p.object_path))
    if not shown:  # gdb's CLI prints no table without rows
        ctx.console("No probes matched.\n")
        return
    rows = [["Type", "Provider", "Name", "Where", "Semaphore", "Object"]] + [
        ["stap", p.provider, p.name, hex16(p.address), hex16(p.semaphore) if p.semaphore else "", p.object_path]
        for p in shown
    ]  # fmt: skip
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        ctx.console("".join(cell.ljust(width) + " " for cell, width in zip(row, widths, strict=True)) + "\n")
