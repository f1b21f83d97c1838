"""A child process searching a byte range of a file (a program's plain .debug_info) for
needles: `python -m aliceserver.debuggers.symbols.dwarf.searchchild PATH OFFSET SIZE CAP
NEEDLE...` prints, a line per needle, every position where it is (relative to OFFSET), or
`-` for a needle found more than CAP times. Started by programsearch.py; it imports only
childstart.py and bytesearch.py (no engine), so it starts in ~25 ms.

A needle is written as hex, `PREFIX:FOLLOWERS` for a (prefix, followers) one. A process,
not a thread of the session's: the search holds the GIL, and runs beside the session's
index build only so (programsearch.py). The section is mapped, not read (bytesearch.FileMap).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from aliceserver.childstart import child_started
from aliceserver.debuggers.symbols.dwarf.bytesearch import FileMap, Needle, positions

MODULE = "aliceserver.debuggers.symbols.dwarf.searchchild"  # (run as `python -m MODULE`)


def arguments(path: str, offset: int, size: int, cap: int, needles: Sequence[Needle]) -> list[str]:
    """The child's command line for searching those bytes of `path`."""
    return [path, str(offset), str(size), str(cap), *map(_encoded, needles)]


def answer(output: bytes, needles: Sequence[Needle]) -> dict[Needle, list[int] | None] | None:
    """The child's `output` read back per needle (None: over the cap); None when it is not
    a whole answer."""
    lines = output.split(b"\n")
    if len(lines) != len(needles) + 1 or lines[-1] != b"":
        return None
    found: dict[Needle, list[int] | None] = {}
    try:
        for needle, line in zip(needles, lines, strict=False):
            found[needle] = None if line == b"-" else [int(word) for word in line.split()]
    except ValueError:
        return None
    return found


def _encoded(needle: Needle) -> str:
    return needle.hex() if isinstance(needle, bytes) else f"{needle[0].hex()}:{needle[1].hex()}"


def _decoded(text: str) -> Needle:
    prefix, colon, followers = text.partition(":")
    return (bytes.fromhex(prefix), bytes.fromhex(followers)) if colon else bytes.fromhex(prefix)


def main(argv: Sequence[str]) -> int:
    path, offset, size, cap, *written = argv
    needles = [_decoded(text) for text in written]
    reader = FileMap(path, int(offset), int(size))
    try:
        found = positions(reader.read, int(size), needles, int(cap))
    finally:
        reader.close()
    lines = []
    for needle in needles:
        hits = found.get(needle, [])
        lines.append("-" if hits is None else " ".join(map(str, hits)))
    out = "".join(f"{line}\n" for line in lines).encode()
    while out:  # (a pipe takes it in parts)
        out = out[os.write(1, out) :]
    return 0


if __name__ == "__main__":
    child_started()
    sys.exit(main(sys.argv[1:]))
