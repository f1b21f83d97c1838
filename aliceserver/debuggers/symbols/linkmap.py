"""The dynamic loader's r_debug / link_map list (x86-64 layout), read from process memory."""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from aliceserver.errors import TargetError

log = logging.getLogger(__name__)

# (address, size) -> exactly `size` bytes; raises TargetError when the memory is unreadable.
ReadMemory = Callable[[int, int], bytes]

DT_NULL = 0
DT_DEBUG = 21

MAX_NAME = 4096  # PATH_MAX, terminating NUL included
MAX_DYNAMIC = 4096  # entries walked in a dynamic section before giving up on it
_CHUNK = 256  # C strings are read in aligned chunks, so a read never crosses a page needlessly

# struct, not construct: these are read at every start, and construct takes longer to
# import than everything they parse in a session.
R_DEBUG = struct.Struct("<i4xQQI4xQ")  # r_version, r_map, r_brk, r_state, r_ldbase
LINK_MAP = struct.Struct("<QQQQQ")  # the public head of glibc's: l_addr, l_name, l_ld, l_next, l_prev
ELF64_DYN = struct.Struct("<qQ")  # d_tag, d_val

_STATES = {0: "consistent", 1: "add", 2: "delete"}  # RT_CONSISTENT, RT_ADD, RT_DELETE


@dataclass(frozen=True, slots=True)
class RDebug:
    version: int  # 0 until ld.so has initialised it; 1, or 2 with dlmopen namespaces
    map_addr: int  # address of the first link_map (the main program)
    brk: int  # ld.so calls this function before and after each change: trap it
    state: str  # "consistent" | "add" | "delete"
    ldbase: int  # load address of ld.so


@dataclass(frozen=True, slots=True)
class LinkMapEntry:
    addr: int  # l_addr: the load bias
    name: str  # the path ld.so opened; "" for the main program
    ld: int  # l_ld: runtime address of the module's dynamic section
    node: int = 0  # address of the link_map itself (its private fields hold the TLS ones)


def _read_exact(read: ReadMemory, address: int, size: int) -> bytes:
    if address < 0 or address + size > 1 << 64:
        raise TargetError(f"address {address:#x} is outside the address space")
    data = read(address, size)
    if len(data) != size:
        raise TargetError(f"short read at {address:#x}: {len(data)} of {size} bytes")
    return data


def _chunks(read: ReadMemory, address: int, limit: int, unit: int) -> Iterator[bytes]:
    """Successive chunks of memory from `address`, at most `limit` bytes in all.

    Chunks end on _CHUNK boundaries, so in page-granular memory a readable first byte means
    a readable chunk; other readers (a core file, a test double) may end mid-chunk, so a
    failed chunk is retried as `unit` bytes, the least the caller can use.
    """
    done = 0
    while done < limit:
        at = address + done
        size = min(_CHUNK - at % _CHUNK, limit - done)
        try:
            chunk = _read_exact(read, at, size)
        except TargetError:
            if size <= unit:
                raise
            chunk = _read_exact(read, at, unit)
        yield chunk
        done += len(chunk)


def read_c_string(read: ReadMemory, address: int, limit: int = MAX_NAME) -> str:
    """The NUL-terminated string at `address`, decoded with surrogateescape.

    TargetError when unreadable or when no NUL comes within `limit` bytes.
    """
    parts: list[bytes] = []
    for chunk in _chunks(read, address, limit, 1):
        nul = chunk.find(b"\0")
        if nul >= 0:
            parts.append(chunk[:nul])
            return b"".join(parts).decode("utf-8", "surrogateescape")
        parts.append(chunk)
    raise TargetError(f"no string terminator within {limit} bytes at {address:#x}")


def find_r_debug_from_dynamic(read: ReadMemory, dynamic_runtime_addr: int) -> int | None:
    """The DT_DEBUG value of an in-memory dynamic section, or None while it is still zero
    (ld.so fills it in before running the program) or absent (a static program)."""
    pending = b""
    seen = 0
    for chunk in _chunks(read, dynamic_runtime_addr, MAX_DYNAMIC * ELF64_DYN.size, 16):
        pending += chunk
        usable = len(pending) - len(pending) % 16
        for d_tag, d_val in ELF64_DYN.iter_unpack(pending[:usable]):
            seen += 1
            if d_tag == DT_NULL:
                return None
            if d_tag == DT_DEBUG:
                return int(d_val) or None
        pending = pending[usable:]
    log.debug("no DT_NULL in %d dynamic entries at %#x", seen, dynamic_runtime_addr)
    return None


def read_r_debug(read: ReadMemory, addr: int) -> RDebug:
    """The r_debug at `addr`; TargetError when unreadable or its state is not a known one."""
    version, map_addr, brk, r_state, ldbase = R_DEBUG.unpack(_read_exact(read, addr, R_DEBUG.size))
    state = _STATES.get(r_state)
    if state is None:
        raise TargetError(f"r_debug at {addr:#x} has an unknown state {r_state}")
    return RDebug(version=version, map_addr=map_addr, brk=brk, state=state, ldbase=ldbase)


def read_link_map(read: ReadMemory, map_addr: int, limit: int = 4096) -> list[LinkMapEntry]:
    """Follow l_next from `map_addr` (at most `limit` entries, stopping at a cycle).

    TargetError when a node or a name cannot be read: the list is being changed or the
    address is garbage. Read it while r_debug's state is "consistent".
    """
    entries: list[LinkMapEntry] = []
    seen: set[int] = set()
    node = map_addr
    while node:
        if len(entries) >= limit:
            log.warning("link_map longer than %d entries; the rest is ignored", limit)
            break
        if node in seen:
            log.warning("link_map cycle at %#x after %d entries", node, len(entries))
            break
        seen.add(node)
        l_addr, l_name, l_ld, l_next, _l_prev = LINK_MAP.unpack(
            _read_exact(read, node, LINK_MAP.size)
        )
        name = read_c_string(read, l_name) if l_name else ""
        entries.append(LinkMapEntry(addr=l_addr, name=name, ld=l_ld, node=node))
        node = l_next
    return entries
