"""The shared libraries a stub lists (qXfer:libraries-svr4:read): the dynamic loader's
link_map entries, read by the stub, so that no r_debug walk over the wire is needed."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass

from aliceserver.debuggers.remote.errors import RemoteError


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
