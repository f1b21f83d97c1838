"""Replies as plain text for reading (YAML-like, no quoting): source windows and hex dumps
stay as their lines instead of JSON-escaped strings. The structured reply is the reference."""

from __future__ import annotations

from typing import Any

_INDENT = "  "


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _lines(value: Any, depth: int) -> list[str]:
    pad = _INDENT * depth
    if isinstance(value, dict):
        rows: list[str] = []
        for key, item in value.items():
            rows.extend(_keyed(f"{pad}{key}:", item, depth))
        return rows
    if isinstance(value, list):
        rows = []
        for item in value:
            inner = _lines(item, depth + 1)
            if not inner:
                rows.append(f"{pad}- []")
                continue
            rows.append(f"{pad}- {inner[0].lstrip()}")
            rows.extend(inner[1:])
        return rows
    return [f"{pad}{line}" for line in _scalar(value).split("\n")]


def _keyed(head: str, value: Any, depth: int) -> list[str]:
    if isinstance(value, (dict, list)):
        if not value:
            return [f"{head} {'{}' if isinstance(value, dict) else '[]'}"]
        return [head, *_lines(value, depth + 1)]
    text = _scalar(value)
    if "\n" in text:
        return [f"{head} |", *_lines(text.removesuffix("\n"), depth + 1)]
    return [f"{head} {text}"]


def render(reply: dict[str, Any]) -> str:
    return "\n".join(_lines(reply, 0))
