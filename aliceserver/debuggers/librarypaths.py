"""Where the shared libraries a process names are read: gdb's `set sysroot` and `set
solib-search-path` (solib.c's solib_find), one per session, applied to every library path
the dynamic loader or a stub gives, the dynamic loader's own too.

A library the target names `/lib/libc.so.6` is read at SYSROOT/lib/libc.so.6; failing
that, the search path's directories are tried with the name made relative, then with its
base name alone. The `target:` prefix (gdb's default sysroot) means the target's own
files: on a local target (a live process here, or a stub that cannot transfer files) that
is this machine's, so the prefix drops; a stub that can is read through it (vFile).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

TARGET_PREFIX = "target:"


@dataclass
class LibraryPaths:
    sysroot: str = TARGET_PREFIX
    search_path: str = ""  # directories separated by ':'
    version: int = field(default=0, compare=False)  # bumped at each change: re-resolve

    def set_sysroot(self, value: str) -> None:
        self.sysroot = value
        self.version += 1

    def set_search_path(self, value: str) -> None:
        self.search_path = value
        self.version += 1

    def joined(self, path: str, *, local_target: bool = True) -> str:
        """`path` under the sysroot (`target:` dropped on a local target), where the
        library is looked for first."""
        sysroot = self.sysroot
        if sysroot.startswith(TARGET_PREFIX) and local_target:
            sysroot = sysroot[len(TARGET_PREFIX) :]
        sysroot = sysroot.rstrip("/")
        return sysroot + path if sysroot and path.startswith("/") else path

    def find(self, path: str, *, local_target: bool = True) -> str | None:
        """The file to read for the library the target names `path`: a path on this
        machine, `target:PATH` for one to read through the target, None when it is found
        nowhere (gdb then warns and loads no symbols for it)."""
        candidate = self.joined(path, local_target=local_target)
        if candidate.startswith(TARGET_PREFIX):
            return candidate
        if os.path.isfile(candidate):
            return candidate
        relative = path.lstrip("/")
        if self.search_path:
            # gdb's openp with OPF_TRY_CWD_FIRST: a name with a directory is tried from
            # the working directory alone; a base name in each directory after that.
            if "/" in relative and os.path.isfile(relative):
                return os.path.realpath(relative)
            base = os.path.basename(relative)
            for directory in ("", *self.search_path.split(":")):
                if directory == "$cwd":
                    directory = os.getcwd()
                found = os.path.join(os.path.expanduser(directory), base) if directory else base
                if os.path.isfile(found):
                    return os.path.realpath(found)
        return None


@runtime_checkable
class HasLibraryPaths(Protocol):
    """An engine whose library files follow the session's LibraryPaths."""

    @property
    def library_paths(self) -> LibraryPaths: ...

    def set_library_paths(self, *, sysroot: str | None = None, search_path: str | None = None) -> None: ...
