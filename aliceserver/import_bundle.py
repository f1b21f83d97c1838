"""The byte code of the submodules a start imports, kept in one file and imported from it.

Python's import system finds and reads each module on its own: a search of the package's
directory for each of its suffixes, a stat of the source, an open and read of the .pyc, a
check of its header. That is 30-40 us a module: 8 ms of the engine's import (250 modules
of aliceserver and pyelftools), more for the MI front end. The bundle keeps the marshalled
code of those modules in one file beside the package's byte code (its `__pycache__`, else
the user's cache directory), opened once, each module's code read at its import (a
mapping of the file kept 3 MB more resident). A module comes from it when its source has
the size and mtime recorded (as a .pyc's header says) and its package's directory the
mtime recorded (so a file added there, which would be found first, is not hidden): else
it is imported as usual, and the bundle is written again at exit, from the .pyc files
Python wrote. The modules are the same (same code, attributes, loader methods), only
found faster.

Only submodules (a dotted name) are served, of aliceserver, pyelftools and the standard
library (a test run's or a plugin's are none of its business): a top-level module's place
depends on sys.path and the working directory.
"""

from __future__ import annotations

import _imp
import marshal
import os
import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec, SourceFileLoader
from importlib.util import MAGIC_NUMBER, cache_from_source
from types import CodeType, ModuleType

_FILE_NAME = f"import_bundle.{sys.implementation.cache_tag}.bin"
_PACKAGES = ("aliceserver", "elftools")
_STDLIB = os.path.dirname(os.__file__) + os.sep
_VERSION = (sys.version, MAGIC_NUMBER, 2)  # 2: this file's layout
_HEADER = 8  # the index's length, then the index, then each module's marshalled code
# name -> (source path, its mtime_ns, its size, is a package, offset and length of its code
# after the index, mtime_ns of the directory it is found in, that directory: kept, not
# worked out at each import: a tenth of find_spec's time)
Entry = tuple[str, int, int, bool, int, int, int, str]


class _Codes:
    """The bundle's codes: `length` bytes at `offset` after its index."""

    def __init__(self, fd: int, start: int, size: int) -> None:
        self.fd, self.start, self.size = fd, start, size

    def read(self, offset: int, length: int) -> bytes:
        return os.pread(self.fd, length, self.start + offset)


class _BundleLoader(SourceFileLoader):
    """A SourceFileLoader whose code comes from the bundle (get_source, resources... as usual)."""

    def __init__(self, fullname: str, path: str, codes: _Codes, place: tuple[int, int]) -> None:
        super().__init__(fullname, path)
        self._codes, self._place = codes, place

    def get_code(self, fullname: str) -> CodeType:
        try:
            code = marshal.loads(self._codes.read(*self._place))
        except (OSError, EOFError, ValueError, TypeError):
            code = None
        if not isinstance(code, CodeType):  # a damaged bundle: the .pyc or the source
            return super().get_code(fullname)  # type: ignore[return-value]
        # As SourceFileLoader's: the code names the file it is imported from.
        _imp._fix_co_filename(code, self.path)  # type: ignore[attr-defined]
        return code


class BundleFinder:
    """The meta path finder serving the bundle at `paths[0]` (written to the first of
    `paths` that can be written): the submodules of `packages` and the standard library's."""

    def __init__(self, paths: list[str], packages: Sequence[str] = _PACKAGES) -> None:
        self.paths = paths
        self.packages = tuple(packages)
        self.index: dict[str, Entry] = {}
        self._data: _Codes | None = None
        self._dirs: dict[str, bool] = {}  # parent directory -> its mtime is the recorded one
        self._before = set(sys.modules)  # imported by other means: not written
        self._served: set[str] = set()
        self._lock = threading.Lock()
        for path in paths:
            loaded = _load(path)
            if loaded is not None:
                self.index, self._data = loaded
                break

    def find_spec(self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
                  ) -> ModuleSpec | None:  # fmt: skip
        entry = self.index.get(name)
        data = self._data
        if entry is None or path is None or data is None:
            return None
        try:
            source, mtime, size, package, offset, length, dir_mtime, parent = entry
            if parent not in path:
                return None
            unchanged = self._dirs.get(parent)
            if unchanged is None:
                unchanged = self._dirs[parent] = _mtime_ns(parent) == dir_mtime
            if not unchanged or not 0 <= offset <= offset + length <= data.size:
                return None
            stat = os.stat(source)
            if stat.st_mtime_ns != mtime or stat.st_size != size:
                return None
        except (ValueError, TypeError, OSError):  # a damaged index, a source gone: as usual
            return None
        loader = _BundleLoader(name, source, data, (offset, length))
        spec = ModuleSpec(name, loader, origin=source, is_package=package)
        spec.has_location = True
        if package:
            spec.submodule_search_locations = [os.path.dirname(source)]
        self._served.add(name)
        return spec

    def save(self) -> None:
        """Write the bundle again when a submodule was imported without it: its entries
        still valid, and the imported modules' code from their .pyc files. Nothing when
        byte code is not to be written (PYTHONDONTWRITEBYTECODE)."""
        if sys.dont_write_bytecode:
            return
        with self._lock:
            codes: dict[str, tuple[str, bytes | tuple[int, int]]] = {}
            for name, module in list(sys.modules.items()):
                if "." not in name or name in self._before or name in self._served:
                    continue
                source = _source_of(name, module, self.packages)
                code = _pyc_code(source) if source is not None else None
                if source is not None and code is not None:
                    codes[name] = (source, code)
            if not codes:
                return  # every module that could be was served (or has no current .pyc)
            for name, entry in self.index.items():  # still valid, imported here or not
                data = self._data
                whole = data is not None and entry[4] + entry[5] <= data.size
                if name not in codes and whole and _valid(entry):
                    codes[name] = (entry[0], (entry[4], entry[5]))  # copied as it is written
        for path in self.paths:
            try:
                _write(path, codes, self._data)
                return
            except OSError:
                continue


def _source_of(name: str, module: ModuleType, packages: tuple[str, ...]) -> str | None:
    """The .py file a submodule to keep was imported from (by the usual loader or the
    bundle's)."""
    spec = getattr(module, "__spec__", None)
    loader = getattr(spec, "loader", None)
    origin = getattr(spec, "origin", None)
    if type(loader) not in (SourceFileLoader, _BundleLoader) or not isinstance(origin, str):
        return None
    if not origin.endswith(".py"):
        return None
    ours = name.partition(".")[0] in packages
    return origin if ours or (origin.startswith(_STDLIB) and "site-packages" not in origin) else None


def _pyc_code(source: str) -> bytes | None:
    """The marshalled code of the .pyc Python wrote for `source`, if it is current
    (a timestamp-checked .pyc of this source's mtime and size)."""
    try:
        stat = os.stat(source)
        with open(cache_from_source(source), "rb") as handle:
            data = handle.read()
    except (OSError, ValueError):
        return None
    if (len(data) < 16 or data[:4] != MAGIC_NUMBER or int.from_bytes(data[4:8], "little") != 0
            or int.from_bytes(data[8:12], "little") != int(stat.st_mtime) & 0xFFFFFFFF
            or int.from_bytes(data[12:16], "little") != stat.st_size & 0xFFFFFFFF):  # fmt: skip
        return None
    return data[16:]


def _mtime_ns(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _valid(entry: Entry) -> bool:
    source, mtime, size, package, _offset, _length, dir_mtime, _parent = entry
    try:
        stat = os.stat(source)
        parent = os.stat(os.path.dirname(os.path.dirname(source) if package else source))
    except OSError:
        return False
    return (stat.st_mtime_ns, stat.st_size, parent.st_mtime_ns) == (mtime, size, dir_mtime)


def _load(path: str) -> tuple[dict[str, Entry], _Codes] | None:
    try:
        fd = os.open(path, os.O_RDONLY)  # kept open (not inherited) for the later imports
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        length = int.from_bytes(os.pread(fd, _HEADER, 0), "little")
        if length > size - _HEADER:
            raise ValueError("no index")
        version, index = marshal.loads(os.pread(fd, length, _HEADER))
        if version != _VERSION or not isinstance(index, dict):
            raise ValueError("another version")
    except (OSError, EOFError, ValueError, TypeError):
        os.close(fd)
        return None
    return index, _Codes(fd, _HEADER + length, size - _HEADER - length)  # offsets from the codes' start


def _write(path: str, codes: dict[str, tuple[str, bytes | tuple[int, int]]],
           data: _Codes | None) -> None:  # fmt: skip
    """Write the bundle of `codes`: each module's marshalled code, or where the bundle
    being replaced (`data`) holds it, read from there one at a time (all of them read
    first made the 6 MB bundle's rewrite at a warm session's exit its peak: 38 MB, not 33)."""
    index: dict[str, Entry] = {}
    offset = 0
    blobs: list[bytes | tuple[int, int]] = []
    for name, (source, code) in sorted(codes.items()):
        package = os.path.basename(source) == "__init__.py"
        length = code[1] if isinstance(code, tuple) else len(code)
        directory = os.path.dirname(os.path.dirname(source) if package else source)
        try:
            stat = os.stat(source)
            parent = os.stat(directory)
        except OSError:
            continue
        if isinstance(code, tuple) and data is None:
            continue
        index[name] = (source, stat.st_mtime_ns, stat.st_size, package, offset, length,
                       parent.st_mtime_ns, directory)  # fmt: skip
        blobs.append(code)
        offset += length
    header = marshal.dumps((_VERSION, index))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = f"{path}.{os.getpid()}.tmp"
    try:
        with open(partial, "wb") as handle:
            handle.write(len(header).to_bytes(_HEADER, "little"))
            handle.write(header)
            for blob in blobs:
                if isinstance(blob, tuple):  # the old bundle's, read now
                    assert data is not None
                    place, blob = blob, data.read(*blob)
                    if len(blob) != place[1]:
                        raise OSError("the bundle being replaced is cut short")
                handle.write(blob)
        os.replace(partial, path)  # readers see the old file or the new one, never half
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


def default_paths() -> list[str]:
    """The package's `__pycache__` (or its place under sys.pycache_prefix), then
    `$XDG_CACHE_HOME/aliceserver` (as dataclass_code.py's)."""
    package = os.path.dirname(os.path.abspath(__file__))
    if sys.pycache_prefix:
        beside_code = os.path.join(sys.pycache_prefix, package.lstrip(os.sep))
    else:
        beside_code = os.path.join(package, "__pycache__")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [os.path.join(beside_code, _FILE_NAME), os.path.join(base, "aliceserver", _FILE_NAME)]


def install(paths: list[str] | None = None, packages: Sequence[str] = _PACKAGES) -> BundleFinder:
    """The bundle's finder, first on sys.meta_path from now on in this process (saved at
    exit); the one installed already if there is one."""
    for finder in sys.meta_path:
        if isinstance(finder, BundleFinder):
            return finder
    import atexit

    finder = BundleFinder(default_paths() if paths is None else paths, packages)
    sys.meta_path.insert(0, finder)
    atexit.register(finder.save)
    return finder
