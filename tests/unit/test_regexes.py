"""compiled_later: the pattern re.compile gives, compiled at the first call and kept."""

from __future__ import annotations

import re

import pytest

from aliceserver.regexes import compiled_later


def test_compiles_at_the_first_call_only(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[object] = []
    real = re.compile

    def counting(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(re, "compile", counting)
    later = compiled_later(r"(\d+)-(\d+)", re.ASCII)
    assert compiled == []  # nothing at import
    first = later()
    assert later() is first and compiled == [r"(\d+)-(\d+)"]
    assert first.pattern == r"(\d+)-(\d+)" and first.flags & re.ASCII
    match = first.fullmatch("12-34")
    assert match is not None and match.groups() == ("12", "34")


def test_bytes_patterns() -> None:
    later = compiled_later(rb"\*(.)", re.DOTALL)
    assert later().sub(lambda m: m.group(1) * 2, b"a*\nb") == b"a\n\nb"
