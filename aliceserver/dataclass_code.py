"""Dataclasses' generated methods compiled once per interpreter, as Python keeps byte code.

`@dataclass` writes the source of each class's `__init__`, `__repr__`, `__eq__`,
`__hash__`, `__setattr__`... and compiles it, one `exec` per method (Python 3.11, 3.12:
some 1,200 compiles, half of the engine's import time, 80 of 160 ms) or one per class
(3.13 on: 164 compiles, 170-200 ms of a 320 ms import). The code compiled depends on that source
alone, so it is kept on disk, by source, beside the package's byte code (its `__pycache__`,
else the user's cache directory when that is read-only), and later processes look it up
instead of compiling again. Nothing else changes: the same source gives the same code,
run with the same globals and locals, so classes, methods and their annotations are
identical.

It works through that `exec`: dataclasses' module is given a global of that name, which
its one call finds before the builtin (every version from 3.11 to 3.13 compiles through
that one call, and nothing else there calls exec).
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import inspect
import marshal
import os
import re
import sys
import threading
from collections.abc import Callable
from types import CodeType, FunctionType, GenericAlias
from typing import Any

_FILE_NAME = f"dataclass_methods.{sys.implementation.cache_tag}.codes"
# The text dataclasses gives exec: one function's definition, with no defaults to evaluate.
_MAKER = re.compile(r"def __create_fn__\([\w, ]*\):\n")
# Python's version, and this file's layout (4: each module's entries marshalled apart).
_VERSION = f"{sys.version} 4"
_MAX_ENTRIES = 16_000  # about 16 MB: a file grown past this (many versions' methods) restarts
# inspect.CO_VARARGS | inspect.CO_VARKEYWORDS (inspect is imported on use: startup.py)
_CO_VARIADIC = 0x04 | 0x08
# A module's entries as the file keeps them: their count, and the marshalled {source: code}.
Group = tuple[int, bytes]


class DataclassCodeCache:
    """Compiled `__create_fn__` wrappers by source, loaded from and saved to `paths`
    (the first that can be written is written).

    The entries are kept by their class's module, so that a save drops the entries of a
    module imported in this process that it no longer makes (its classes changed): without
    that the file kept every version's methods (774 of 1,893), all unmarshalled at each
    start. A module's entries are unmarshalled when its first class is made: the file
    holds the classes of every front end and test run this package served (1,590 entries,
    8.7-9.2 ms to unmarshal at a process's start, against 5.2-5.5 for the engine's 949).
    (Entries marshalled one by one, unmarshalled when looked up, cost more: 2.7 ms
    against 1.6 for the engine's 1,130 with the collector paused, as import_quietly has it.)"""

    def __init__(self, paths: list[str]) -> None:
        self.paths = paths
        self.codes: dict[str, CodeType] = {}  # the entries unmarshalled or compiled here
        self.compiled = 0  # compiled in this process since the last save
        self._groups: dict[str, Group] = {}  # module -> its entries, as read, until opened
        self._opened: dict[str, dict[str, CodeType]] = {}  # module -> its entries read (in `codes`)
        self._used: set[tuple[str, str]] = set()  # (module, source) looked up or compiled here
        self._lock = threading.Lock()
        for path in paths:
            loaded = _load(path)
            if loaded is not None:
                self._groups = loaded
                break

    def code_for(self, source: str, module: str = "") -> CodeType:
        code = self.codes.get(source)
        if code is None and module in self._groups:
            with self._lock:
                group = self._groups.pop(module, None)  # its bytes let go once read
                if group is not None:
                    self._opened[module] = _entries(group)
                    self.codes.update(self._opened[module])
            code = self.codes.get(source)
        if code is None:
            # As dataclasses' own exec: no __future__ flags inherited from this module
            # (annotations stay objects, not strings).
            code = compile(source, "<string>", "exec", dont_inherit=True)
            with self._lock:
                self.codes[source] = code
                self.compiled += 1
        if (module, source) not in self._used:
            with self._lock:
                self._used.add((module, source))
        return code

    def entries(self) -> dict[str, dict[str, CodeType]]:
        """Every entry the file held at the start or this process added, by module."""
        with self._lock:
            by_module = {module: _entries(group) for module, group in self._groups.items()}
            by_module.update((module, dict(entries)) for module, entries in self._opened.items())
            for module, source in self._used:
                by_module.setdefault(module, {})[source] = self.codes[source]
        return by_module

    def save(self) -> None:
        """Write what was compiled since the last save, with what the file held meanwhile
        (another process's classes) less the stale entries; nothing when nothing was
        compiled (so nothing changed) or byte code is not to be written
        (PYTHONDONTWRITEBYTECODE)."""
        if not self.compiled or sys.dont_write_bytecode:
            return
        ours: dict[str, dict[str, CodeType]] = {}
        with self._lock:
            self.compiled = 0
            for module, source in self._used:
                ours.setdefault(module, {})[source] = self.codes[source]
        for path in self.paths:
            on_disk = _load(path) or {}
            # A module imported here makes the entries it used, no more; the others' are
            # kept as the file has them (written by the processes that import them).
            groups = {module: group for module, group in on_disk.items() if module not in ours}
            for module, entries in ours.items():
                if not module and module in on_disk:  # no class's module: all kept
                    entries = {**_entries(on_disk[module]), **entries}
                groups[module] = (len(entries), marshal.dumps(entries))
            if sum(count for count, _data in groups.values()) > _MAX_ENTRIES:
                groups = {name: (len(kept), marshal.dumps(kept)) for name, kept in ours.items()}
            try:
                _write(path, groups)
                return
            except OSError:
                continue

    def exec(self, source: str | bytes | CodeType, globals: dict[str, Any] | None = None,
             locals: dict[str, Any] | None = None) -> None:  # fmt: skip
        """builtins.exec as dataclasses calls it, once per method (3.11, 3.12) or per class
        (3.13 on): `source`, the text `def __create_fn__(...)` of the methods' maker, put
        compiled in `locals` as that exec does, its code compiled once."""
        if not isinstance(source, str) or globals is None or locals is None:
            builtins.exec(source, globals, locals)  # (no call of dataclasses' own)
            return
        code = self.code_for(source, str(globals.get("__name__", "")))
        maker = code.co_consts[0] if code.co_consts else None
        if _MAKER.match(source) and "__builtins__" in globals and type(maker) is CodeType:
            # What that exec makes (a function of no defaults), without running the module
            # code that makes it (exec would also put __builtins__ in globals: there already).
            locals[maker.co_name] = FunctionType(maker, globals)
            return
        builtins.exec(code, globals, locals)  # noqa: S102 - as dataclasses


def default_paths() -> list[str]:
    """The package's `__pycache__` (or its place under sys.pycache_prefix), then
    `$XDG_CACHE_HOME/aliceserver`."""
    package = os.path.dirname(os.path.abspath(__file__))
    if sys.pycache_prefix:
        beside_code = os.path.join(sys.pycache_prefix, package.lstrip(os.sep))
    else:
        beside_code = os.path.join(package, "__pycache__")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [os.path.join(beside_code, _FILE_NAME),
            os.path.join(base, "aliceserver", _FILE_NAME)]  # fmt: skip


def installed() -> DataclassCodeCache | None:
    """The cache dataclasses use in this process, if one was installed."""
    owner = getattr(vars(dataclasses).get("exec"), "__self__", None)
    return owner if isinstance(owner, DataclassCodeCache) else None


def install(paths: list[str] | None = None) -> DataclassCodeCache:
    """Make dataclasses use a cache kept at `paths` (default_paths()) from now on in this
    process, saved at exit too (for the classes of modules imported later); the cache
    installed already if there is one."""
    cache = installed()
    if cache is not None:
        return cache
    cache = DataclassCodeCache(default_paths() if paths is None else paths)
    # A global of dataclasses' module shadows the builtin for its own `exec(txt, ...)`,
    # the one call through which every version compiles the methods it writes.
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    dataclasses.inspect = _DataclassInspect()  # type: ignore[attr-defined]
    if isinstance(getattr(dataclasses, "_MODULE_IDENTIFIER_RE", None), re.Pattern):
        dataclasses._is_type = is_type  # type: ignore[attr-defined]
    atexit.register(cache.save)
    return cache


# A string annotation's leading `module.name` or `name` (None: neither), by its text.
_IDENTIFIERS: dict[str, tuple[str | None, str] | None] = {}


def is_type(annotation: str, cls: type, a_module: Any, a_type: Any,
            is_type_predicate: Callable[[Any, Any], bool]) -> bool:  # fmt: skip
    """dataclasses._is_type (3.11, 3.12): does a string annotation name `a_type` of
    `a_module`? Each text matched once, not three times a field (ClassVar, InitVar,
    KW_ONLY) and again for each class with a field so annotated: about 10% of making
    a module of dataclasses."""
    if annotation in _IDENTIFIERS:
        parsed = _IDENTIFIERS[annotation]
    else:
        match = dataclasses._MODULE_IDENTIFIER_RE.match(annotation)  # type: ignore[attr-defined]
        parsed = _IDENTIFIERS[annotation] = (match.group(1), match.group(2)) if match else None
    if parsed is None:
        return False
    module_name, name = parsed
    ns = None
    if not module_name:  # as dataclasses': the class's module did `from typing import ClassVar`
        ns = sys.modules.get(cls.__module__).__dict__
    else:
        module = sys.modules.get(cls.__module__)
        if module and module.__dict__.get(module_name) is a_module:
            ns = sys.modules.get(a_type.__module__).__dict__
    return bool(ns and is_type_predicate(ns.get(name), a_module))


class _DataclassInspect:
    """inspect as dataclasses sees it: `signature` of a class without a docstring (its
    __doc__ is made from it) read straight from the __init__ dataclasses generated, and
    (3.13 on) a class's own annotations.
    inspect.signature takes 20-60 us a class (3-6 ms for the engine's 96), most of it
    looking for the method that makes instances; the text is the same."""

    def __getattr__(self, name: str) -> Any:
        return getattr(inspect, name)

    @staticmethod
    def signature(obj: Any) -> Any:
        text = generated_init_signature(obj)
        return text if text is not None else inspect.signature(obj)

    @staticmethod
    def get_annotations(obj: Any, **options: Any) -> Any:
        """inspect.get_annotations of a plain class, as 3.13's dataclasses asks (no
        options): a copy of its own annotations' dict, as inspect's, without importing
        inspect (3 ms); any other case, inspect's."""
        if type(obj) is type and not options:
            own = vars(obj).get("__annotations__")
            if own is None or type(own) is dict:
                return dict(own or {})
        return inspect.get_annotations(obj, **options)


def generated_init_signature(cls: Any) -> str | None:
    """str(inspect.signature(cls)) for a class whose own __init__ dataclasses generated,
    with no metaclass, __new__, __signature__ or wrapper to consider; else None."""
    init = vars(cls).get("__init__") if type(cls) is type else None
    if (not isinstance(init, FunctionType) or init.__code__.co_filename != "<string>"
            or "__new__" in vars(cls) or hasattr(cls, "__signature__") or hasattr(cls, "__wrapped__")
            or hasattr(cls, "_partialmethod") or hasattr(init, "__wrapped__")):  # fmt: skip
        return None
    code = init.__code__
    if code.co_posonlyargcount or code.co_flags & _CO_VARIADIC:
        return None
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    annotations = init.__annotations__
    defaults = init.__defaults__ or ()
    first_default = code.co_argcount - len(defaults)
    kw_defaults = init.__kwdefaults__ or {}
    parts: list[str] = []
    for index, name in enumerate(names[1:], start=1):  # the first is self
        if index == code.co_argcount:
            parts.append("*")
        has_default = name in kw_defaults if index >= code.co_argcount else index >= first_default
        default = (kw_defaults.get(name) if index >= code.co_argcount
                   else defaults[index - first_default] if has_default else None)  # fmt: skip
        part = name
        if name in annotations:
            part = f"{name}: {_annotation(annotations[name])}"
        if has_default:
            part += f" = {default!r}" if name in annotations else f"={default!r}"
        parts.append(part)
    text = f"({', '.join(parts)})"
    if "return" in annotations:
        text += f" -> {_annotation(annotations['return'])}"
    return text


def _annotation(annotation: Any) -> str:
    if getattr(annotation, "__module__", None) == "typing" or isinstance(annotation, (type, GenericAlias)):
        return str(inspect.formatannotation(annotation))
    return repr(annotation)  # a string: our modules' annotations are (PEP 563)


def _load(path: str) -> dict[str, Group] | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read()  # marshal.load on the file would read it piecemeal
        version, groups = marshal.loads(data)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if version != _VERSION or not isinstance(groups, dict):
        return None
    return groups


def _entries(group: Group) -> dict[str, CodeType]:
    try:
        entries = marshal.loads(group[1])
    except (EOFError, ValueError, TypeError, IndexError):
        return {}
    return entries if isinstance(entries, dict) else {}


def _write(path: str, groups: dict[str, Group]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = f"{path}.{os.getpid()}.tmp"
    try:
        with open(partial, "wb") as handle:
            handle.write(marshal.dumps((_VERSION, groups)))
        os.replace(partial, path)  # readers see the old file or the new one, never half
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
