"""Finding and running the printer scripts of a program's images, where gdb finds them:
`<path>-gdb.py` beside the image, else `<auto-load dir>/<real path>-gdb.py` (gdb's
`auto-load scripts-directory`: the debug-file directory and `/usr/share/gdb/auto-load`),
and the `.debug_gdb_scripts` section (a file name searched in the script directories, or an
inline script). Rust's `gdb_load_rust_pretty_printers.py` is found in the toolchain (`rustc
--print sysroot`), where rust-gdb points gdb. Scripts are run from where they are
installed, never copied; which of them may run is autoload.py's safe path.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from aliceserver.debuggers.printers.autoload import AutoLoad

if TYPE_CHECKING:  # the printers' own: finding scripts (a front end's check) needs neither
    from aliceserver.debuggers.printers.context import Call
    from aliceserver.debuggers.printers.objfiles import Objfile

log = logging.getLogger(__name__)

SECTION = ".debug_gdb_scripts"
_SECTION_FILE, _SECTION_INLINE = 1, 4  # SECTION_SCRIPT_ID_PYTHON_FILE / _PYTHON_TEXT


@dataclass(frozen=True)
class Script:
    origin: str  # a path, or `<section of IMAGE>` for an inline script
    source: str | None = None  # inline text; None: read `origin`
    name: str = ""  # as `info auto-load` lists it: the section's name for it, else `origin`
    judged: str = ""  # the file the safe path judges: the script's, an inline one's image's
    toolchain: bool = False  # Rust's printers, trusted where found as rust-gdb trusts them


@dataclass(frozen=True)
class Missing:
    """A script the image's section names that is not installed here."""

    name: str
    offset: int


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


def scripts_for(path: str, extra_dirs: list[str], auto_load: AutoLoad) -> list[Script | Missing]:
    """The scripts gdb would auto-load for the image at `path`, safe or not."""
    found: list[Script | Missing] = []
    real = os.path.realpath(path)  # by its real name only: libc6-dev's scripts for /lib/... never load in gdb
    candidates = [real + "-gdb.py"] + [d + real + "-gdb.py" for d in auto_load.script_directories()]
    hits = [c for c in candidates if os.path.isfile(c)]
    if hits:  # gdb takes the first it finds, safe or not
        found.append(Script(hits[0], name=hits[0], judged=hits[0]))
    found.extend(section_scripts(path, extra_dirs, auto_load.script_directories()))
    return found


def judged(path: str, extra_dirs: list[str], auto_load: AutoLoad) -> tuple[list[Script], list[tuple[str, str]]]:
    """The image's scripts that the safe path allows, and gdb's warnings about the others:
    those it declines and those the image names that are missing (both recorded as not
    loaded); nothing with `auto-load python-scripts` off."""
    if not auto_load.python_scripts:
        return [], []
    allowed: list[Script] = []
    notes: list[tuple[str, str]] = []
    before = auto_load.declined.get(path)  # as the image was read: it stays so
    declined = auto_load.declined.setdefault(path, set())
    for script in scripts_for(path, extra_dirs, auto_load):
        if isinstance(script, Missing):
            auto_load.record(False, script.name)
            notes += auto_load.missing_note(path, script.offset)
        elif before is None and (script.toolchain or auto_load.is_safe(script.judged)):
            allowed.append(script)
        elif before is None or script.origin in before:
            declined.add(script.origin)
            record(auto_load, script, loaded=False)
            notes += auto_load.declined_notes(script.judged)
        else:
            allowed.append(script)
    return allowed, notes


def record(auto_load: AutoLoad, script: Script, *, loaded: bool) -> None:
    inline = script.source is not None
    auto_load.record(loaded, script.name, None if inline else script.origin, inline=inline)


def section_scripts(path: str, extra_dirs: list[str], script_dirs: list[str]) -> list[Script | Missing]:
    data = _section_bytes(path)
    out: list[Script | Missing] = []
    for offset, kind, text in _entries(data):
        if kind == _SECTION_INLINE:
            name, _, body = text.partition("\n")
            out.append(Script(f"<{SECTION} of {path}: {name}>", body, name=name, judged=path))
        elif kind == _SECTION_FILE:
            located = _locate(text, path, [*extra_dirs, *script_dirs])
            if located is None:
                log.info("%s names the gdb script %s, which is not installed here", path, text)
                out.append(Missing(text, offset))
            else:
                where, toolchain = located
                out.append(Script(where, name=text, judged=where, toolchain=toolchain))
    return out


def _entries(data: bytes) -> Iterator[tuple[int, int, str]]:
    """(offset, kind, text) of each entry."""
    i = 0
    while i < len(data):
        kind = data[i]
        end = data.find(b"\0", i + 1)
        if end < 0:
            end = len(data)
        if kind in (_SECTION_FILE, _SECTION_INLINE):
            yield i, kind, data[i + 1 : end].decode("utf-8", "replace")
        i = end + 1


def _section_bytes(path: str) -> bytes:
    try:  # the one ELF header parser: pyelftools' ELFFile took 1 ms per library here
        from aliceserver.debuggers.symbols.dwarf.sections import ElfSections

        return ElfSections(path).get(SECTION)
    except Exception as exc:  # not an ELF file, or unreadable: no scripts
        log.debug("no %s in %s: %s", SECTION, path, exc)
        return b""


def _locate(name: str, image: str, dirs: list[str]) -> tuple[str, bool] | None:
    """Where the script is, and whether it is the Rust toolchain's own."""
    if os.path.isabs(name):
        return (name, False) if os.path.isfile(name) else None
    places = [(directory, False) for directory in (*dirs, os.path.dirname(image))]
    if name.startswith("gdb_load_rust_pretty_printers"):
        etc = rust_etc_directory()
        if etc is not None:
            places.append((etc, True))
    for directory, toolchain in places:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate, toolchain
    return None


@cache
def rust_etc_directory() -> str | None:
    """The toolchain's `lib/rustlib/etc`, as rust-gdb finds it."""
    import shutil
    import subprocess  # here: a program's scripts are found at each start, Rust's seldom

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


def run_script(script: Script, call: Call, objfile: Objfile | None) -> None:
    """Run one script as gdb does: its own globals, `gdb.current_objfile()` its image."""
    from aliceserver.debuggers.printers import context

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
