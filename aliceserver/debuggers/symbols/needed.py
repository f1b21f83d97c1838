"""The shared libraries a program will load, foreseen from its files before it runs.

Its DT_NEEDED entries, and theirs, looked up much as the loader does: DT_RPATH (when there
is no DT_RUNPATH), DT_RUNPATH ($ORIGIN expanded), /etc/ld.so.cache, then the system's
directories. LD_LIBRARY_PATH, LD_PRELOAD and dlopen are not foreseen: this is a guess made
to start work early (prebuild.py), and what it gets wrong costs only that work.
"""

from __future__ import annotations

import os
import struct

from aliceserver.debuggers.symbols.elf import PT_DYNAMIC, PT_LOAD, ElfImage, Segment
from aliceserver.errors import AliceError

_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_STRSZ, _DT_RPATH, _DT_RUNPATH = 0, 1, 5, 10, 15, 29
_CACHE_MAGIC = b"glibc-ld.so.cache1.1"
_CACHE_HEADER = 48  # magic and version, nlibs, len_strings, flags, extension, unused
_CACHE_ENTRY = struct.Struct("<iIIIQ")  # flags, key, value, osversion, hwcap
_MULTIARCH = {"EM_X86_64": "x86_64-linux-gnu", "EM_AARCH64": "aarch64-linux-gnu"}
_LIMIT = 256  # libraries followed at most


def needed_libraries(image: ElfImage, ld_cache: str = "/etc/ld.so.cache") -> list[str]:
    """Paths of the libraries `image` needs, directly or through another, in the order
    the loader maps them (breadth first); a name found nowhere is left out."""
    cached = _cache_entries(ld_cache)
    system = [f"/lib/{_MULTIARCH[image.machine]}", f"/usr/lib/{_MULTIARCH[image.machine]}"] \
        if image.machine in _MULTIARCH else []  # fmt: skip
    system += ["/lib64", "/usr/lib64", "/lib", "/usr/lib"]
    found: list[str] = []
    seen_names: set[str] = set()
    queue = [image]
    while queue and len(found) < _LIMIT:
        needer = queue.pop(0)
        needed, search = _dynamic(needer)
        for name in needed:
            if name in seen_names:
                continue
            seen_names.add(name)
            library = _locate(name, search, cached, system, image.machine)
            if library is not None and library.path not in found:
                found.append(library.path)
                queue.append(library)
    return found


def _locate(name: str, search: list[str], cached: dict[str, list[str]], system: list[str],
            machine: str) -> ElfImage | None:  # fmt: skip
    """The first file called `name` where the loader looks, of the program's machine."""
    if "/" in name:
        candidates = [name]
    else:
        candidates = [os.path.join(d, name) for d in search] + cached.get(name, [])
        candidates += [os.path.join(d, name) for d in system]
    for path in candidates:
        try:
            library = ElfImage.load(path) if os.path.isfile(path) else None
        except AliceError:
            continue
        if library is not None and library.machine == machine:
            return library
    return None


def _dynamic(image: ElfImage) -> tuple[list[str], list[str]]:
    """(DT_NEEDED names, the directories its run path lists) of `image`."""
    dynamic = next((s for s in image.segments if s.type == PT_DYNAMIC), None)
    if dynamic is None or not image.little_endian:
        return [], []
    try:
        with open(image.path, "rb") as stream:
            raw = os.pread(stream.fileno(), dynamic.filesz, dynamic.offset)
            entries = [(tag, value) for tag, value in struct.iter_unpack("<qQ", raw[: len(raw) // 16 * 16])]
            tags = dict(entries[: next((i for i, e in enumerate(entries) if e[0] == _DT_NULL), len(entries))])
            at = _file_offset(image.segments, tags.get(_DT_STRTAB, -1))
            if at is None:
                return [], []
            strings = os.pread(stream.fileno(), tags.get(_DT_STRSZ, 0), at)
    except OSError:
        return [], []

    def text(offset: int) -> str:
        end = strings.find(b"\0", offset)
        return strings[offset : end if end >= 0 else None].decode("utf-8", "surrogateescape")

    needed = [text(value) for tag, value in entries if tag == _DT_NEEDED and value < len(strings)]
    path_tag = _DT_RUNPATH if _DT_RUNPATH in tags else _DT_RPATH
    origin = os.path.dirname(os.path.realpath(image.path))
    search = []
    if path_tag in tags and tags[path_tag] < len(strings):
        for entry in text(tags[path_tag]).split(":"):
            search.append(entry.replace("${ORIGIN}", origin).replace("$ORIGIN", origin))
    return needed, [d for d in search if d]


def _file_offset(segments: tuple[Segment, ...], vaddr: int) -> int | None:
    for s in segments:
        if s.type == PT_LOAD and s.vaddr <= vaddr < s.vaddr + s.filesz:
            return s.offset + vaddr - s.vaddr
    return None


def _cache_entries(path: str) -> dict[str, list[str]]:
    """Library name -> paths, from the loader's cache (glibc's new format), in its order."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError:
        return {}
    base = data.find(_CACHE_MAGIC)
    if base < 0 or len(data) < base + _CACHE_HEADER:
        return {}
    (count,) = struct.unpack_from("<I", data, base + len(_CACHE_MAGIC))
    found: dict[str, list[str]] = {}
    start = base + _CACHE_HEADER
    count = min(count, (len(data) - start) // _CACHE_ENTRY.size)
    for _flags, key, value, _os, _hwcap in _CACHE_ENTRY.iter_unpack(
        data[start : start + count * _CACHE_ENTRY.size]
    ):
        found.setdefault(_string(data, base + key), []).append(_string(data, base + value))
    return found


def _string(data: bytes, at: int) -> str:
    end = data.find(b"\0", at)
    return data[at : end if end >= 0 else None].decode("utf-8", "surrogateescape")
