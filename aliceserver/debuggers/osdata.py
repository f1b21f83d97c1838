"""The operating system's tables gdb's `info os` lists on Linux (gdb/nat/linux-osdata.c's
types, columns and readings of /proc), and the parse of a stub's `qXfer:osdata` XML.

Each table is a list of items, each item its (column, value) pairs in order; values are
as gdb shows them after its XML round trip (leading and trailing blanks stripped)."""

from __future__ import annotations

import grp
import os
import pwd
import socket
import struct
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterator

Item = list[tuple[str, str]]
Table = list[Item]

_TCP_STATES = ("(unknown)", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
               "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING")  # fmt: skip


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError:
        return None


def _text(path: str) -> str | None:
    data = _read(path)
    return None if data is None else data.decode("utf-8", "surrogateescape")


def _pids(bound: int = 19) -> Iterator[str]:
    """/proc's entries that start with a digit (gdb's test), in directory order."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    for name in names:
        if name[:1].isdigit() and len(name) <= bound:
            yield name


def _atoi(text: str) -> int:
    digits = ""
    for ch in text:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits or "0")


def command_of(pid: int) -> str:
    """gdb's command_from_pid: stat's second field, read as one word of at most 17 bytes,
    without its first and last characters (a name with a blank is cut there)."""
    stat = _text(f"/proc/{pid}/stat")
    if stat is None:
        return str(pid)[:31]
    words = stat.split(None, 2)
    if len(words) < 2 or _atoi(words[0]) != pid:
        return ""
    return words[1][:17][1:-1]


def command_line_of(pid: int) -> str:
    """gdb's commandline_from_pid: arguments joined by blanks, else `[command]`."""
    data = _read(f"/proc/{pid}/cmdline")
    if data is None:
        return ""
    if data:
        return data.replace(b"\0", b" ").decode("utf-8", "surrogateescape").strip()
    inner = command_of(pid)[:30]
    return f"[{inner}]" if len(inner) + 1 < 31 else f"[{inner}"


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name[:31]
    except KeyError:
        return ""


def _group(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name[:31]
    except KeyError:
        return ""


def core_of_thread(pid: int, tid: int) -> int:
    """The processor a thread last ran on (stat's 39th field), -1 when unknown."""
    stat = _text(f"/proc/{pid}/task/{tid}/stat")
    if stat is None or ")" not in stat:
        return -1
    fields = stat[stat.rindex(")") + 1:].split()
    try:
        return int(fields[36])
    except (IndexError, ValueError):
        return -1


def _tids(pid: str) -> list[str]:
    try:
        return [name for name in os.listdir(f"/proc/{pid}/task") if name[:1].isdigit()]
    except OSError:
        return []


def processes() -> Table:
    cores_online = os.sysconf("SC_NPROCESSORS_ONLN")
    table: Table = []
    for name in _pids():
        pid = int(name)
        try:
            user = _user(os.stat(f"/proc/{name}").st_uid)
        except OSError:
            user = "?"
        used = sorted({core for tid in _tids(name) if 0 <= (core := core_of_thread(pid, int(tid))) < cores_online})
        table.append([("pid", name), ("user", user), ("command", command_line_of(pid)),
                      ("cores", ",".join(str(core) for core in used))])  # fmt: skip
    return table


def process_groups() -> Table:
    """Sorted by group, its leader first, then by pid."""
    members: list[tuple[int, int]] = []
    for name in _pids():
        try:
            pgid = os.getpgid(int(name))
        except OSError:
            continue
        if pgid > 0:
            members.append((int(name), pgid))
    members.sort(key=lambda pair: (pair[1], pair[0] != pair[1], pair[0]))
    return [[("pgid", str(pgid)), ("leader command", command_of(pgid)), ("pid", str(pid)),
             ("command line", command_line_of(pid))] for pid, pgid in members]  # fmt: skip


def threads() -> Table:
    table: Table = []
    for name in _pids(10):
        if not os.path.isdir(f"/proc/{name}"):
            continue
        pid = _atoi(name)
        command = command_of(pid)
        for tid in _tids(name):
            if len(tid) <= 10:
                table.append([("pid", str(pid)), ("command", command), ("tid", str(_atoi(tid))),
                              ("core", str(core_of_thread(pid, _atoi(tid))))])  # fmt: skip
    return table


def files() -> Table:
    table: Table = []
    for name in _pids(10):
        if not os.path.isdir(f"/proc/{name}"):
            continue
        command = command_of(_atoi(name))
        try:
            fds = [fd for fd in os.listdir(f"/proc/{name}/fd") if fd[:1].isdigit()]
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{name}/fd/{fd}")[:999]
            except OSError:
                target = fd
            table.append([("pid", name), ("command", command), ("file descriptor", fd), ("name", target)])
    return table


def cpus() -> Table:
    """/proc/cpuinfo: a new item at each `processor` line; a key ends at its first tab, a
    value at its first tab or colon."""
    table: Table = []
    for line in (_text("/proc/cpuinfo") or "").splitlines(keepends=True):
        parts = [part for part in line.split(":") if part]
        if len(parts) < 2:
            continue
        key, value = parts[0].split("\t")[0], parts[1].split("\t")[0]
        if key == "processor":
            table.append([])
        if table:  # gdb writes what comes before the first processor outside any item
            table[-1].append((key.strip(), value.strip()))
    return table


def modules() -> Table:
    table: Table = []
    for line in (_text("/proc/modules") or "").splitlines():
        words = line.split(" ", 5)
        if len(words) < 6 or not words[1].isdigit():
            continue
        try:
            address = int(words[5].split()[0], 16)
            uses = int(words[2])
        except (ValueError, IndexError):
            continue
        table.append([("name", words[0]), ("size", words[1]), ("num uses", str(uses)),
                      ("dependencies", words[3]), ("status", words[4]), ("address", f"{address:x}")])  # fmt: skip
    return table


def _when(seconds: int) -> str:
    return "" if not seconds else time.ctime(seconds).strip()


def _ipc(path: str, count: int) -> Iterator[list[int]]:
    for line in (_text(path) or "").splitlines()[1:]:
        try:
            yield [int(word, 8) if index == 2 else int(word) for index, word in enumerate(line.split()[:count])]
        except ValueError:
            continue


def shared_memory() -> Table:
    return [[("key", str(f[0])), ("shmid", str(f[1])), ("permissions", f"{f[2]:o}"), ("size", str(f[3])),
             ("creator command", command_of(f[4])), ("last op. command", command_of(f[5])),
             ("num attached", str(f[6])), ("user", _user(f[7])), ("group", _group(f[8])),
             ("creator user", _user(f[9])), ("creator group", _group(f[10])), ("last shmat() time", _when(f[11])),
             ("last shmdt() time", _when(f[12])), ("last shmctl() time", _when(f[13]))]
            for f in _ipc("/proc/sysvipc/shm", 14) if len(f) == 14]  # fmt: skip


def semaphores() -> Table:
    return [[("key", str(f[0])), ("semid", str(f[1])), ("permissions", f"{f[2]:o}"), ("num semaphores", str(f[3])),
             ("user", _user(f[4])), ("group", _group(f[5])), ("creator user", _user(f[6])),
             ("creator group", _group(f[7])), ("last semop() time", _when(f[8])), ("last semctl() time", _when(f[9]))]
            for f in _ipc("/proc/sysvipc/sem", 10) if len(f) == 10]  # fmt: skip


def message_queues() -> Table:
    return [[("key", str(f[0])), ("msqid", str(f[1])), ("permissions", f"{f[2]:o}"), ("num used bytes", str(f[3])),
             ("num messages", str(f[4])), ("last msgsnd() command", command_of(f[5])),
             ("last msgrcv() command", command_of(f[6])), ("user", _user(f[7])), ("group", _group(f[8])),
             ("creator user", _user(f[9])), ("creator group", _group(f[10])), ("last msgsnd() time", _when(f[11])),
             ("last msgrcv() time", _when(f[12])), ("last msgctl() time", _when(f[13]))]
            for f in _ipc("/proc/sysvipc/msg", 14) if len(f) == 14]  # fmt: skip


def proc_net_address(family: int, text: str) -> str:
    """/proc/net's address: 32-bit words in hex, each in this machine's byte order."""
    words = [int(text[i:i + 8], 16) for i in range(0, len(text), 8)]
    return socket.inet_ntop(family, struct.pack(f"={len(words)}I", *words))


def _sockets_of(family: int, tcp: bool) -> Table:
    name = ("tcp" if tcp else "udp") + ("6" if family == socket.AF_INET6 else "")
    table: Table = []
    for line in (_text(f"/proc/net/{name}") or "").splitlines()[1:]:
        words = line.split()
        try:
            (local, lport), (remote, rport) = words[1].split(":"), words[2].split(":")
            state, uid = int(words[3], 16), int(words[7])
            local, remote = proc_net_address(family, local), proc_net_address(family, remote)
        except (IndexError, ValueError, OSError):
            continue
        table.append([("local address", local), ("local port", str(int(lport, 16))), ("remote address", remote),
                      ("remote port", str(int(rport, 16))),
                      ("state", _TCP_STATES[state] if state < len(_TCP_STATES) else "(unknown)"),
                      ("user", _user(uid)), ("family", "INET" if family == socket.AF_INET else "INET6"),
                      ("protocol", "STREAM" if tcp else "DGRAM")])  # fmt: skip
    return table


def sockets() -> Table:
    return [item for family in (socket.AF_INET, socket.AF_INET6) for tcp in (True, False)
            for item in _sockets_of(family, tcp)]  # fmt: skip


# gdb's osdata_table: type, title, description, reader
TYPES: tuple[tuple[str, str, str, Callable[[], Table]], ...] = (
    ("cpus", "CPUs", "Listing of all cpus/cores on the system", cpus),
    ("files", "File descriptors", "Listing of all file descriptors", files),
    ("modules", "Kernel modules", "Listing of all loaded kernel modules", modules),
    ("msg", "Message queues", "Listing of all message queues", message_queues),
    ("processes", "Processes", "Listing of all processes", processes),
    ("procgroups", "Process groups", "Listing of all process groups", process_groups),
    ("semaphores", "Semaphores", "Listing of all semaphores", semaphores),
    ("shm", "Shared-memory regions", "Listing of all shared-memory regions", shared_memory),
    ("sockets", "Sockets", "Listing of all internet-domain sockets", sockets),
    ("threads", "Threads", "Listing of all threads", threads),
)


def types() -> Table:
    return [[("Type", name), ("Description", description), ("Title", title)]
            for name, title, description, _ in TYPES]  # fmt: skip


def native(kind: str) -> Table | None:
    """This machine's table of `kind` ("" or "types": the list of kinds); None: no such kind."""
    if kind in ("", "types"):
        return types()
    reader = next((read for name, _, _, read in TYPES if name == kind), None)
    return None if reader is None else reader()


def parse(xml: bytes) -> Table | None:
    """A stub's `<osdata>` document (None: empty, gdb's "Wrong osdata type?")."""
    if not xml.strip():
        return None
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError:
        return None  # gdb warns that it could not parse it, then has no data
    return [[(column.get("name", ""), (column.text or "").strip()) for column in item.iter("column")]
            for item in root.iter("item")]  # fmt: skip
