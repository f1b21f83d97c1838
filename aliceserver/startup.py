"""Start-up: importing the server's modules without the garbage collector's re-walks, and
the environment as the user gave it (Python's locale coercion undone); and the way out,
without the interpreter's teardown of all it imported.

Start-up builds a few hundred classes (dataclasses generate their methods' code) and
tables, none of it garbage; the cyclic collector, triggered by that many allocations,
walks the growing heap again and again meanwhile (about a tenth of the import time). So it
is paused during the imports, and what they made is frozen out of later collections.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import os
import resource
import sys
from types import ModuleType
from typing import NoReturn


def import_quietly(name: str) -> ModuleType:
    """`importlib.import_module(name)` with the collector paused, then its objects frozen.

    A module imported already (or being imported by another thread, which import_module
    waits for) is not frozen again: in a long-running server (a session per connection)
    that would keep every later session's garbage for ever. Dataclasses' methods are
    compiled once per interpreter (dataclass_code.py), and submodules come from one file
    of their byte code (import_bundle.py)."""
    if name in sys.modules:
        return importlib.import_module(name)
    defer_import("pdb")
    defer_import("inspect")  # before dataclasses imports it
    defer_import("copy")  # (dataclasses' asdict, astuple: deepcopy)
    defer_import("traceback")  # before logging imports it
    was_enabled = gc.isenabled()
    gc.disable()
    from aliceserver import dataclass_code, deferred_names, import_bundle

    import_bundle.install()
    code_cache = dataclass_code.install()
    deferred_names.defer_names()  # e.g. pyelftools' readers of sections ours parse
    try:
        return importlib.import_module(name)
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
        code_cache.save()


def defer_import(name: str) -> None:
    """Put in sys.modules a stand-in for the module `name` that imports it on the first
    use of one of its attributes, unless it is imported already. For pdb: pyelftools'
    construct imports it for a debugging aid we never use (pdb with cmd, bdb, code, glob,
    pprint: 1.5-3.5 ms of each start). For inspect: dataclasses imports it for the
    signatures dataclass_code.py reads from the generated __init__ (inspect with ast and
    dis: about 3 ms). For traceback: logging imports it to format an exception (with
    linecache, tokenize and textwrap: about 1.5 ms). For copy: dataclasses imports it for
    asdict's and astuple's deepcopy (0.3 ms). importlib's LazyLoader would not do:
    an `import` statement reads the module's __spec__, which makes it load."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None:
        return
    stand_in = _Deferred(name)
    stand_in.__spec__ = spec
    sys.modules[name] = stand_in


class _Deferred(ModuleType):
    def __getattr__(self, attribute: str) -> object:  # an attribute it does not have yet
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        real = importlib.import_module(self.__name__)
        vars(self).update({k: v for k, v in vars(real).items() if k != "__spec__"})
        return getattr(real, attribute)


def leave(code: int) -> NoReturn:
    """End the process with `code`, as sys.exit(code) in the main thread would: its other
    non-daemon threads joined, the atexit functions run, the standard streams flushed;
    but not the teardown of the interpreter that follows (every module's objects freed
    one by one: 3-7 ms after a session to CPython's first stop), which the OS does at
    once. Only where the process ends its work (gdb's command line run as a program)."""
    import atexit
    import threading

    main = threading.main_thread()
    for thread in threading.enumerate():
        if thread is not main and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: as Python's exit, nothing more to say
            pass
    os._exit(code)


_RESERVED_DESCRIPTORS = 4096  # 1,000 threads' comm and stat files kept open (procinfo.ThreadFiles)


def reserve_descriptors(count: int = _RESERVED_DESCRIPTORS) -> None:
    """Grow this process's file descriptor table to `count` entries (at most the open-file
    limit) while it has one thread. The kernel doubles the table when a new descriptor does
    not fit, and in a process of several threads waits for an RCU grace period first
    (expand_fdtable's synchronize_rcu, 5-15 ms): the first stop's `threads` with 1,000
    threads opened 1,000 comm files from 256 slots up, two doublings, ~25 of its 35 ms.
    A table never shrinks; one of 4,096 slots is 32 KB."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    top = count if soft == resource.RLIM_INFINITY else min(count, soft)
    try:
        fd = os.open("/", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.close(os.dup2(fd, top - 1, inheritable=False))
    except OSError:  # a limit below the table's first size: nothing to grow
        pass
    finally:
        os.close(fd)


# What PEP 538 puts in LC_CTYPE when Python starts in the C locale (the first one available).
_COERCED_LOCALES = ("C.UTF-8", "C.utf8", "UTF-8")


def undo_locale_coercion(started_with: dict[str, str] | None = None) -> None:
    """Give LC_CTYPE back the value this process was started with, when Python changed it.

    Started in the C locale, Python sets LC_CTYPE=C.UTF-8 in its own environment (PEP
    538); every program we run would inherit it, though under gdb (a C program) it sees
    the user's environment. `started_with` is that environment (by default the process's
    own, from /proc/self/environ, which setenv leaves as it was at exec)."""
    if started_with is None:
        started_with = _environment_at_exec()
        if started_with is None:
            return
    now, before = os.environ.get("LC_CTYPE"), started_with.get("LC_CTYPE")
    if now == before or now not in _COERCED_LOCALES or before not in (None, "C", "POSIX"):
        return
    if before is None:
        del os.environ["LC_CTYPE"]
    else:
        os.environ["LC_CTYPE"] = before


def _environment_at_exec() -> dict[str, str] | None:
    try:
        with open("/proc/self/environ", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    pairs = (entry.partition(b"=") for entry in data.split(b"\0") if b"=" in entry)
    return {os.fsdecode(name): os.fsdecode(value) for name, _, value in pairs}
