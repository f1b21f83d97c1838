"""Finding and running the printer scripts of a program's images, where gdb finds them:
`<auto-load dir>/<real path>-gdb.py` (gdb's defaults: the debug-file directory and
`/usr/share/gdb/auto-load`), `<path>-gdb.py` beside the image, and the `.debug_gdb_scripts`
section (a file name searched in the script directories, or an inline script). Rust's
`gdb_load_rust_pretty_printers.py` is found in the toolchain (`rustc --print sysroot`),
where rust-gdb points gdb. Scripts are run from where they are installed, never copied.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from aliceserver.debuggers.printers import context
from aliceserver.debuggers.printers.objfiles import Objfile

log = logging.getLogger(__name__)

# gdb's defaults: `show auto-load scripts-directory` is $debugdir:$datadir/auto-load.
DEBUG_FILE_DIRECTORY = "/usr/lib/debug"
GDB_DATA_DIRECTORY = "/usr/share/gdb"
SECTION = ".debug_gdb_scripts"
_SECTION_FILE, _SECTION_INLINE = 1, 4  # SECTION_SCRIPT_ID_PYTHON_FILE / _PYTHON_TEXT


@dataclass(frozen=True)
class Script:
    origin: str  # a path, or `<section of IMAGE>` for an inline script
    source: str | None = None  # inline text; None: read `origin`


def install_gdb_module() -> None:
    """Make `import gdb`, `import gdb.printing`, `from gdb import xmethod` reach the shim."""
    if getattr(sys.modules.get("gdb"), "__name__", None) == "aliceserver.debuggers.printers.gdb":
        return
    from aliceserver.debuggers.printers import gdb
    from aliceserver.debuggers.printers.gdb import printing, types, xmethod

    sys.modules["gdb"] = gdb
    sys.modules["gdb.printing"] = printing
    sys.modules["gdb.types"] = types
    sys.modules["gdb.xmethod"] = xmethod


def script_directories() -> list[str]:
    return [DEBUG_FILE_DIRECTORY, os.path.join(GDB_DATA_DIRECTORY, "auto-load")]


def scripts_for(path: str, extra_dirs: list[str]) -> list[Script]:
    """The scripts gdb would auto-load for the image at `path`."""
    found: list[Script] = []
    real = os.path.realpath(path)
    for name in dict.fromkeys((real, path)):
        candidates = [d + name + "-gdb.py" for d in script_directories()] + [name + "-gdb.py"]
        hits = [c for c in candidates if os.path.isfile(c)]
        if hits:
            found.append(Script(hits[0]))
            break  # gdb stops at the first name that has a script
    found.extend(section_scripts(path, extra_dirs))
    return found


def section_scripts(path: str, extra_dirs: list[str]) -> list[Script]:
    data = _section_bytes(path)
    out: list[Script] = []
    for kind, text in _entries(data):
        if kind == _SECTION_INLINE:
            name, _, body = text.partition("\n")
            out.append(Script(f"<{SECTION} of {path}: {name}>", body))
        elif kind == _SECTION_FILE:
            located = _locate(text, path, extra_dirs)
            if located is None:
                log.info("%s names the gdb script %s, which is not installed here", path, text)
            else:
                out.append(Script(located))
    return out


def _entries(data: bytes) -> Iterator[tuple[int, str]]:
    i = 0
    while i < len(data):
        kind = data[i]
        end = data.find(b"\0", i + 1)
        if end < 0:
            end = len(data)
        if kind in (_SECTION_FILE, _SECTION_INLINE):
            yield kind, data[i + 1 : end].decode("utf-8", "replace")
        i = end + 1


def _section_bytes(path: str) -> bytes:
    try:  # the one ELF header parser: pyelftools' ELFFile took 1 ms per library here
        from aliceserver.debuggers.symbols.dwarf.sections import ElfSections

        return ElfSections(path).get(SECTION)
    except Exception as exc:  # not an ELF file, or unreadable: no scripts
        log.debug("no %s in %s: %s", SECTION, path, exc)
        return b""


def _locate(name: str, image: str, extra_dirs: list[str]) -> str | None:
    if os.path.isabs(name):
        return name if os.path.isfile(name) else None
    dirs = [*extra_dirs, *script_directories(), os.path.dirname(image)]
    if name.startswith("gdb_load_rust_pretty_printers"):
        etc = rust_etc_directory()
        if etc is not None:
            dirs.append(etc)
    for directory in dirs:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate
    return None


@cache
def rust_etc_directory() -> str | None:
    """The toolchain's `lib/rustlib/etc`, as rust-gdb finds it."""
    rustc = shutil.which("rustc")
    if rustc is None:
        return None
    try:
        out = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True,
                             timeout=20, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    etc = os.path.join(out.stdout.strip(), "lib", "rustlib", "etc")
    return etc if out.returncode == 0 and os.path.isdir(etc) else None


def run_script(script: Script, call: context.Call, objfile: Objfile | None) -> None:
    """Run one script as gdb does: its own globals, `gdb.current_objfile()` its image."""
    install_gdb_module()
    if script.source is not None:
        source = script.source
    else:
        with open(script.origin, encoding="utf-8", errors="surrogateescape") as handle:
            source = handle.read()
    code = compile(source, script.origin, "exec")
    scope = {"__name__": "__main__", "__file__": script.origin}
    call.objfile = objfile
    try:
        with context.entered(call):
            exec(code, scope)  # noqa: S102 - running the user's gdb scripts is the point
    finally:
        call.objfile = None
