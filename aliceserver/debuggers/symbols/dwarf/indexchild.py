"""A child process building the index name parts of the libraries a program will load, and
storing them in the index cache, while the session builds the program's own (indexahead.py).

`python -m aliceserver.debuggers.symbols.dwarf.indexchild CACHE_DIR MARKER PROGRAM MTIME
SIZE ENTRY...`: each ENTRY is `+PATH` (index it, unless the cache has it) or `=PATH`
(only listed), in the order the loader maps them. It prints `ready` once its modules are
imported, then a line per `+` library, as it is done: `built KEY` (stored), `had KEY`
(another process stored it meanwhile), `none KEY` (no DWARF: nothing to index) or `failed
KEY`; KEY is the cache key DebugInfo.load reads it by. Before those it stores MARKER, the
list of the program's libraries and their keys, for the next session's check
(indexahead.py). It imports only childstart.py, the ELF reader, the cache and namepart.py
(no engine).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from aliceserver.childstart import child_started
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.namepart import build_name_part, index_key
from aliceserver.debuggers.symbols.dwarf.sections import open_dwarf
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.errors import AliceError

MODULE = "aliceserver.debuggers.symbols.dwarf.indexchild"


def arguments(directory: str, marker: str, program: tuple[str, int, int],
              entries: Sequence[tuple[bool, str]]) -> list[str]:  # fmt: skip
    """The child's command line: `entries` as (to index, library path)."""
    path, mtime_ns, size = program
    return [directory, marker, path, str(mtime_ns), str(size),
            *(("+" if wanted else "=") + library for wanted, library in entries)]  # fmt: skip


def _say(line: str) -> None:
    out = f"{line}\n".encode()
    while out:  # (a pipe takes it in parts)
        out = out[os.write(1, out) :]


def _key(path: str) -> tuple[str, tuple[str, int, int, str], object]:
    """(the key the library at `path` is indexed by, its marker entry (its key "" when it
    has no DWARF: no index), its index's identity (None: no DWARF))."""
    image = ElfImage.load(path)
    stat = os.stat(path)
    opened = open_dwarf(path, image.build_id)
    if opened is None:
        key = IndexCache.key_for(image.build_id, path, stat.st_mtime_ns, stat.st_size)
        return key, (path, stat.st_mtime_ns, stat.st_size, ""), None
    key, identity = index_key(image.build_id, opened[0].path, opened[1].path)
    return key, (path, stat.st_mtime_ns, stat.st_size, key), identity


def main(argv: Sequence[str]) -> None:
    directory, marker, program, mtime_ns, size, *entries = argv
    _say("ready")
    cache = IndexCache(directory)
    todo = []
    listed = []
    for entry in entries:
        try:
            key, listing, identity = _key(entry[1:])
        except (AliceError, OSError, ValueError) as error:
            if entry[0] == "+":
                _say(f"failed {entry[1:]} {error}")
            continue
        listed.append(listing)
        if entry[0] == "+":
            todo.append((entry[1:], key, identity))
    # First: the session may kill this child once it has heard of each library it waits for
    cache.store(marker, (program, int(mtime_ns), int(size)), {"libraries": listed})
    for path, key, identity in todo:
        if identity is None:
            _say(f"none {key}")
        elif os.path.exists(cache.path_for(key)):
            _say(f"had {key}")
        else:
            try:
                cache.store(key, identity, build_name_part(ElfImage.load(path)))
            except (AliceError, OSError, ValueError):
                _say(f"failed {key}")
                continue
            _say(f"{'built' if cache.writable else 'failed'} {key}")


if __name__ == "__main__":
    child_started()
    main(sys.argv[1:])
    os._exit(0)  # (the interpreter's teardown is nobody's business)
