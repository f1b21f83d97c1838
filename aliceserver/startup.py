"""Importing the server's modules at start-up, without the garbage collector's re-walks.

Start-up builds a few hundred classes (dataclasses generate their methods' code) and
tables, none of it garbage; the cyclic collector, triggered by that many allocations,
walks the growing heap again and again meanwhile (about a tenth of the import time). So it
is paused during the imports, and what they made is frozen out of later collections.
"""

from __future__ import annotations

import gc
import importlib
import sys
from types import ModuleType


def import_quietly(name: str) -> ModuleType:
    """`importlib.import_module(name)` with the collector paused, then its objects frozen.

    A module imported already (or being imported by another thread, which import_module
    waits for) is not frozen again: in a long-running server (a session per connection)
    that would keep every later session's garbage for ever."""
    if name in sys.modules:
        return importlib.import_module(name)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return importlib.import_module(name)
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
