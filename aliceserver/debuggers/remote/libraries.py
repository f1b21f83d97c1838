"""The shared libraries a stub lists: qXfer:libraries-svr4:read, the dynamic loader's
link_map entries read by the stub (no r_debug walk over the wire), and qXfer:libraries:read,
the list of a stub whose target has no SVR4 loader (gdb's solib-target: Windows, embedded)."""

from __future__ import annotations

import logging
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.debuggers.remote.errors import RemoteConnectionError, RemoteError
from aliceserver.debuggers.symbols.elfheaders import SHF_ALLOC, Section
from aliceserver.debuggers.symbols.linkmap import LinkMapEntry

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from aliceserver.debuggers.remote.client import RemoteClient
    from aliceserver.debuggers.symbols.elf import ElfImage


@dataclass(frozen=True, slots=True)
class SvrLibrary:
    name: str  # the path the loader opened
    lm: int  # its link_map's address
    l_addr: int  # load bias
    l_ld: int  # its dynamic section's address
    lmid: int = 0  # the dlmopen namespace


@dataclass(frozen=True, slots=True)
class SvrLibraries:
    main_lm: int | None  # the main program's link_map (absent before the loader ran)
    libraries: tuple[SvrLibrary, ...]


def parse(document: bytes) -> SvrLibraries:
    try:
        root = ElementTree.fromstring(document)
    except ElementTree.ParseError as error:
        raise RemoteError(f"A bad library list from the stub: {error}.") from None
    main = root.get("main-lm")
    found = []
    for node in root.iter("library"):
        try:
            found.append(SvrLibrary(node.get("name", ""), int(node.get("lm", "0"), 16),
                                    int(node.get("l_addr", "0"), 16), int(node.get("l_ld", "0"), 16),
                                    int(node.get("lmid", "0"), 16)))  # fmt: skip
        except ValueError:
            raise RemoteError(f"A bad library entry from the stub: {node.attrib}.") from None
    return SvrLibraries(int(main, 16) if main else None, tuple(found))


def svr4_link_map(client: RemoteClient) -> list[LinkMapEntry] | None:
    """The loader's link map as the stub reads it (main program first, as in memory), as
    gdb's svr4_current_sos_via_xfer_libraries takes it; None where the stub offers no list
    or fails to give one (gdb then walks the link map in memory itself; it never turns to
    qXfer:libraries:read on an SVR4 target)."""
    if not client.supports("qXfer:libraries-svr4:read"):
        return None
    try:
        listed = parse(client.xfer_read("libraries-svr4"))
    except RemoteConnectionError:
        raise
    except RemoteError as error:
        log.debug("the stub's svr4 list: %s", error)
        return None
    if listed.main_lm is None and not listed.libraries:
        return None  # the loader has not started its list yet: as in memory, nothing to tell
    return [LinkMapEntry(0, "", 0, listed.main_lm or 0),
            *(LinkMapEntry(lib.l_addr, lib.name, lib.l_ld, lib.lm) for lib in listed.libraries)]  # fmt: skip


# --- gdb's solib-target: a stub with no SVR4 loader lists its libraries itself -----------
@dataclass(frozen=True, slots=True)
class ListedLibrary:
    """One <library> of qXfer:libraries:read: where the stub says the file is loaded,
    by its first loadable segment's address or by each allocated section's."""

    name: str
    segments: tuple[int, ...] = ()
    sections: tuple[int, ...] = ()


def lists_libraries(client: RemoteClient) -> bool:
    """Whether the stub's own list is the one to read (gdb's solib-target): it offers
    qXfer:libraries:read and no SVR4 list (so no link map of a loader to walk)."""
    svr4 = client.features.get("qXfer:libraries-svr4:read") == "+"  # offered (even if it fails since)
    return client.supports("qXfer:libraries:read") and not svr4


def read_listed(client: RemoteClient) -> tuple[ListedLibrary, ...]:
    return parse_listed(client.xfer_read("libraries"))


def parse_listed(document: bytes) -> tuple[ListedLibrary, ...]:
    """gdb's library-list.dtd: <library name><segment address/>... or <section address/>..."""
    try:
        root = ElementTree.fromstring(document)
    except ElementTree.ParseError as error:
        raise RemoteError(f"A bad library list from the stub: {error}.") from None
    found = []
    for node in root.iter("library"):
        try:
            segments = tuple(int(part.get("address", ""), 0) for part in node.iter("segment"))
            sections = tuple(int(part.get("address", ""), 0) for part in node.iter("section"))
        except ValueError:
            raise RemoteError(f"A bad library entry from the stub: {node.attrib}.") from None
        if segments and sections:  # as gdb's library_list_start_segment/section refuse it
            raise RemoteError("Library list with both segments and sections")
        found.append(ListedLibrary(node.get("name", ""), segments, sections))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class ListedPlace:
    bias: int  # the load bias of its code
    range: tuple[int, int] | None = None  # the range gdb shows, placed by sections (None: segments')
    warnings: tuple[str, ...] = ()
    text_range: bool = False  # not relocated: gdb shows its .text's range, as svr4 does


def listed_place(library: ListedLibrary, image: ElfImage | None) -> ListedPlace:
    """Where a listed library is loaded, from its file (None: found nowhere): by its first
    segment's address less that segment's link-time one, or by its sections' (gdb's
    solib_target_relocate_section_addresses)."""
    if library.segments:
        return ListedPlace(library.segments[0] - (image.load_low if image is not None else 0))
    if image is None or not library.sections:
        return ListedPlace(library.sections[0] if library.sections else 0)
    return _sections_place(library, [s for s in image.sections if s.flags & SHF_ALLOC])


def _sections_place(library: ListedLibrary, allocated: list[Section]) -> ListedPlace:
    """gdb moves each allocated section by the address given for it (the link-time address
    plus it: one bias here, .text's, for the code), refuses a count that differs from the
    file's, and shows the range from the lowest address given to the end of the largest
    section (inclusive), as its solib-target computes them."""
    bases = library.sections
    if len(bases) != len(allocated):
        return ListedPlace(0, None, (f'Could not relocate shared library "{library.name}": '
                                     "wrong number of ALLOC sections",), text_range=True)  # fmt: skip
    text = next((k for k, section in enumerate(allocated) if section.name == ".text"), 0)
    sized = [(base, section.size) for base, section in zip(bases, allocated, strict=True) if section.size]
    if not sized:
        return ListedPlace(bases[text])
    return ListedPlace(bases[text], (min(b for b, _ in sized), max(b + size - 1 for b, size in sized)))
