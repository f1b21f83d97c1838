"""Regular expressions compiled at their first use rather than at import.

Compiling one costs 30-300 us; the modules a session imports to reach its first stop
compiled some 60 that the stop never uses (about 4 ms through the MI front end, 1.5 ms
through the engine alone), each module's own kept for a command or case that may not come.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, partial
from typing import AnyStr


def compiled_later(pattern: AnyStr, flags: int = 0) -> Callable[[], re.Pattern[AnyStr]]:
    """A function that gives `re.compile(pattern, flags)`, compiled at its first call."""
    return cache(partial(re.compile, pattern, flags))
