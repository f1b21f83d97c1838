"""Names a library module imports for its methods alone, imported at their first call.

pyelftools' DWARFInfo imports the readers of the sections it parses on request (line
programs, call frame information, location and range lists, address ranges, name
tables), and with them its DW_* constants (elftools.dwarf.constants: enum classes of
some 500 members): about 5% of a start's imports, none of which a session uses until
it asks DWARFInfo for one of those (our own readers parse them). Those names are only
called in DWARFInfo's methods, so a stand-in module gives the importer, for its
`from MODULE import NAME`, a callable that imports MODULE at its first call and puts the
real names in the importer's namespace then. Any other use of the module (another
importer, another attribute) imports it at once, as startup.defer_import's stand-ins do.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

# importer -> {module: the names it imports from it that it only calls}
PARTS: dict[str, dict[str, tuple[str, ...]]] = {
    "elftools.dwarf.dwarfinfo": {
        "elftools.dwarf.lineprogram": ("LineProgram",),
        "elftools.dwarf.callframe": ("CallFrameInfo",),
        "elftools.dwarf.locationlists": ("LocationLists", "LocationListsPair"),
        "elftools.dwarf.ranges": ("RangeLists", "RangeListsPair"),
        "elftools.dwarf.aranges": ("ARanges",),
        "elftools.dwarf.namelut": ("NameLUT",),
    },
    # construct's containers' repr, for a debugging aid (pprint: 0.3-0.5 ms)
    "elftools.construct.lib.container": {"pprint": ("pformat",)},
    # PriorityQueue's (heapq with its C part: 0.3-0.5 ms); our queues are plain ones
    "queue": {"heapq": ("heappush", "heappop")},
}
_lock = threading.Lock()


def defer_names(parts: dict[str, dict[str, tuple[str, ...]]] = PARTS) -> None:
    """Put stand-ins in sys.modules for the modules of `parts` (importer -> {module:
    names}), unless the importer or the module is imported already."""
    for importer, modules in parts.items():
        if importer in sys.modules:
            continue
        for name, attributes in modules.items():
            try:
                if name in sys.modules or importlib.util.find_spec(name) is None:
                    continue
            except ImportError:  # its package is not there: nothing to defer
                continue
            stand_in = _DeferredNames(name)
            stand_in._importer, stand_in._names = importer, attributes
            sys.modules[name] = stand_in
            parent, _, child = name.rpartition(".")
            if parent in sys.modules:  # as an import sets it (`import a.b` then a.b.name)
                setattr(sys.modules[parent], child, stand_in)


class _DeferredNames(ModuleType):
    _importer = ""
    _names: tuple[str, ...] = ()

    def __getattr__(self, attribute: str) -> Any:  # an attribute it does not have yet
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        # The importer's `from MODULE import NAME` runs in its module's frame.
        caller = sys._getframe(1).f_globals.get("__name__")
        if attribute in self._names and caller == self._importer:
            return _LateName(self.__name__, attribute)
        return getattr(_real(self.__name__), attribute)


class _LateName:
    """A name of `module`, imported at the first call."""

    def __init__(self, module: str, name: str) -> None:
        self._module, self._name = module, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(_real(self._module), self._name)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self._module}.{self._name}, imported at its first call>"


def _real(name: str) -> ModuleType:
    """The module `name`, imported now if a stand-in holds its place (the importer's
    names are the real ones from then on)."""
    stand_in = sys.modules.get(name)
    if not isinstance(stand_in, _DeferredNames):
        return importlib.import_module(name)
    with _lock:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]
    real = importlib.import_module(name)  # another thread's import of it is waited for
    with _lock:
        vars(stand_in).update({k: v for k, v in vars(real).items() if k != "__spec__"})
        importer = sys.modules.get(stand_in._importer)
        for attribute in stand_in._names:
            if importer is not None and isinstance(vars(importer).get(attribute), _LateName):
                setattr(importer, attribute, getattr(real, attribute))
    return real
