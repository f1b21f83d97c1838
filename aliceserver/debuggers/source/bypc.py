"""Answers that follow from a pc in a module (its debug info), kept by (module path, load
bias, pc): a step's stops ask the same ones again at each stop in a loop."""

from __future__ import annotations

from typing import Callable, TypeVar

K = TypeVar("K")
V = TypeVar("V")


def by_pc(kept: dict[K, V], key: K, make: Callable[[], V], most: int) -> V:
    """`kept[key]`, made first where missing; at most `most` kept (then all dropped)."""
    if key not in kept:
        if len(kept) >= most:
            kept.clear()
        kept[key] = make()
    return kept[key]
