"""What a front end's skip list (gdb's `skip`) is asked when a `step` enters a function:
the function's name and its file, as gdb's function_name_is_marked_for_skip is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True, slots=True)
class SkipQuery:
    """A function a step went into. `files`: the names its first line's file goes by (the
    name the line table gives, e.g. `helper.c`, then the full path), as gdb compares a
    skip's file with the symtab's name and then its full name."""

    function: str | None
    files: tuple[str, ...]


# True: the step goes over the function instead of stopping in it (gdb's step over a skip).
StepSkips = Callable[[SkipQuery], bool]
