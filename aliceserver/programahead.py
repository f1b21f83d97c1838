"""The program's index built in a child process from the server's first moment, while the
server imports its modules.

A session of a program never seen builds the program's index name part (namepart.py: its
symbol table packed, ~45 ms of CPython's first stop) on the tracer thread, after Python's
~100 ms of imports, all on one CPU. Where the program is known from the command line (gdb's
`--args PROG`, `-batch ... PROG`; the benchmark's engine script), `start` spawns, before
those imports, the child that builds indexes ahead (indexchild.py `--program`): it builds
the program's and then those of the libraries it needs, and stores them in the cache
(written whole or not at all), a line each. The session claims the child (`claim`, from
indexahead.py) when it loads the program's index, and waits for its word instead of
building it (a child not at work yet, failed or killed leaves it to the session, as before).

Deciding costs next to nothing where no child is wanted (a warm start): the tasks runnable now,
the program's build id read from its notes (a few reads, no ELF reader imported), one stat
of the index file. So it imports only `os` and `sys`; the spawn, childstart.py.
The child is started only when a CPU is idle now (`_spare_cpu`).
It dies with this process (PR_SET_PDEATHSIG; spawned by the main thread, which lives as long
as the process) and is reaped by whoever claims it, or at exit.
"""

from __future__ import annotations

import os

from aliceserver.debuggers.symbols.dwarf.cacheformat import FORMAT_VERSION

MODULE = "aliceserver.debuggers.symbols.dwarf.indexchild"
_PT_NOTE, _NT_GNU_BUILD_ID = 4, 3

# The child started with the process, until claimed: (pid, read end of its output, its
# cache directory, the program's cache key)
_unclaimed: tuple[int, int, str, str] | None = None


def start(program: str | None, cache_dir: str | None = None) -> None:
    """Start the child building the index of `program` (and its libraries') in the index
    cache at `cache_dir` (None: the default one) when that index is missing and a CPU is
    idle. Call it first thing, before the server's imports."""
    global _unclaimed
    if _unclaimed is not None or not program or not _spare_cpu():
        return
    try:
        build_id = _build_id(program)
    except (OSError, ValueError):
        return  # (not an ELF file of ours: the session says what it is)
    if build_id is None:  # (keyed by a hash: left to the session, as before)
        return
    directory = os.path.abspath(cache_dir) if cache_dir else _default_directory()
    key = "b-" + build_id
    if os.path.exists(os.path.join(directory, f"{key}.v{FORMAT_VERSION}.idx")):
        return
    import atexit

    from aliceserver.childstart import spawn

    try:
        pid, read_end = spawn(MODULE, ["--program", directory, os.path.abspath(program)])
    except OSError:
        return
    _unclaimed = (pid, read_end, directory, key)
    atexit.register(_end_unclaimed)


def claim(directory: str) -> tuple[int, int, str] | None:
    """The child started with the process for the cache `directory`: (pid, read end of
    its output, the program's key), now the caller's to read and reap; else None."""
    global _unclaimed
    if _unclaimed is None or _unclaimed[2] != os.path.abspath(directory):
        return None
    pid, read_end, _directory, key = _unclaimed
    _unclaimed = None
    return pid, read_end, key


def _end_unclaimed() -> None:
    """At exit: kill and reap a child nobody claimed (no session loaded the program)."""
    global _unclaimed
    if _unclaimed is None:
        return
    import signal

    pid, read_end, _directory, _key = _unclaimed
    _unclaimed = None
    os.close(read_end)
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass


def _spare_cpu() -> bool:
    """Whether a CPU is idle now for the child: the tasks runnable at this moment (this
    process's one thread among them) leave one. Not the last minute's load average, as
    indexahead.py's later check: that lags the machine by a minute, and a debugger is
    started just after a build. CPython's cold first stop, 10 paired rounds on 2 CPUs just
    after a minute of two busy processes (load average 1.5, idle now): median 268 ms
    against 286 without the child; at load 0.7-0.8, where both start it, 242 and 243."""
    try:
        return runnable_tasks() <= len(os.sched_getaffinity(0))
    except (OSError, ValueError, IndexError):
        return True


def runnable_tasks() -> int:
    """The kernel's count of tasks runnable at this moment, the caller's among them (the
    fourth field of /proc/loadavg: `running/total`)."""
    with open("/proc/loadavg", "rb") as handle:
        return int(handle.read().split()[3].split(b"/")[0])


def _default_directory() -> str:
    """cachedir.default_directory's answer, without its imports (a different answer would
    only leave the child unclaimed: `claim` compares the directories)."""
    chosen = os.environ.get("ALICESERVER_CACHE_DIR")
    if chosen:
        return os.path.abspath(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "aliceserver", "index")


def _build_id(path: str) -> str | None:
    """The GNU build id of the ELF64 little-endian file at `path`, as hex, from its first
    PT_NOTE segment holding one (as _elfread.py reads it); None: none, or another kind of
    file."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        head = os.pread(fd, 64, 0)
        if len(head) < 64 or head[:6] != b"\x7fELF\x02\x01":
            return None
        phoff = int.from_bytes(head[32:40], "little")
        entsize = int.from_bytes(head[54:56], "little")
        count = int.from_bytes(head[56:58], "little")
        if entsize < 56 or count > 256:
            return None
        table = os.pread(fd, entsize * count, phoff)
        for start in range(0, len(table) - 55, entsize):
            entry = table[start : start + 56]
            if int.from_bytes(entry[0:4], "little") != _PT_NOTE:
                continue
            offset = int.from_bytes(entry[8:16], "little")
            size = int.from_bytes(entry[32:40], "little")
            align = 8 if int.from_bytes(entry[48:56], "little") == 8 else 4
            found = _note_build_id(os.pread(fd, min(size, 1 << 16), offset), align)
            if found is not None:
                return found
        return None
    finally:
        os.close(fd)


def _note_build_id(notes: bytes, align: int) -> str | None:
    at = 0
    while at + 12 <= len(notes):
        namesz = int.from_bytes(notes[at : at + 4], "little")
        descsz = int.from_bytes(notes[at + 4 : at + 8], "little")
        kind = int.from_bytes(notes[at + 8 : at + 12], "little")
        name_at = at + 12
        desc_at = name_at + -(-namesz // align) * align
        end = desc_at + -(-descsz // align) * align
        if desc_at + descsz > len(notes):
            return None
        if kind == _NT_GNU_BUILD_ID and notes[name_at : name_at + namesz] == b"GNU\0":
            return notes[desc_at : desc_at + descsz].hex()
        at = end
    return None
