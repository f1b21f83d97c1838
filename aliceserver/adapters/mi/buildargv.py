"""A command's arguments split as gdb's buildargv (libiberty) splits them: shell-like words,
quotes grouping, and an unclosed quote running to the end of the line rather than an error."""

from __future__ import annotations

import shlex


def build_argv(text: str) -> list[str]:
    """`text`'s words; an unclosed quote (either kind) closes at the end, as in buildargv."""
    for closing in ("", '"', "'"):
        try:
            return shlex.split(text + closing)
        except ValueError:  # "No closing quotation" (or an escape at the very end)
            continue
    return text.split()
