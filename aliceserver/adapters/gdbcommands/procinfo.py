"""gdb's `info proc [cmdline|cwd|exe|mappings] [PID]` (linux-tdep.c's linux_info_proc),
read from /proc as gdb reads it for a native Linux process."""

from __future__ import annotations

import os

from aliceserver.adapters.gdbcommands.selection import Write
from aliceserver.errors import ProtocolError, Unsupported

_WHAT = ("cmdline", "cwd", "exe", "mappings")
_DEFAULT = ("cmdline", "cwd", "exe")  # a bare `info proc`


def info_proc(pid: int | None, argument: str, write: Write) -> None:
    """`pid`: the program's process, None when there is none."""
    words = argument.split()
    wanted: tuple[str, ...] = _DEFAULT
    if words and not words[0].isdigit():
        what = words.pop(0)
        if what in ("stat", "status", "all", "files"):
            raise Unsupported(f'"info proc {what}" is not supported by aliceserver.')
        if what not in _WHAT:
            raise ProtocolError(f'Undefined info proc command: "{what}".  Try "help info proc".')
        wanted = (what,)
    if words:
        if not words[0].isdigit() or len(words) > 1:
            raise ProtocolError("Too many parameters: " + " ".join(words))
        pid = int(words[0])
    if pid is None:
        raise ProtocolError("No current process: you must name one.")
    write(f"process {pid}\n")
    for what in wanted:
        if what == "cmdline":
            _cmdline(pid, write)
        elif what in ("cwd", "exe"):
            _link(pid, what, write)
        else:
            _mappings(pid, write)


def _cmdline(pid: int, write: Write) -> None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            data = handle.read()
    except OSError:
        write(f"warning: unable to open /proc file '/proc/{pid}/cmdline'\n")
        return
    text = data.rstrip(b"\0").replace(b"\0", b" ").decode("utf-8", "surrogateescape")
    write(f"cmdline = '{text}'\n")


def _link(pid: int, what: str, write: Write) -> None:
    try:
        target = os.readlink(f"/proc/{pid}/{what}")
    except OSError:
        write(f"warning: unable to read link '/proc/{pid}/{what}'\n")
        return
    write(f"{what} = '{target}'\n")


def _mappings(pid: int, write: Write) -> None:
    try:
        with open(f"/proc/{pid}/maps", encoding="utf-8", errors="surrogateescape") as handle:
            lines = handle.read().splitlines()
    except OSError:
        write(f"warning: unable to open /proc file '/proc/{pid}/maps'\n")
        return
    write("Mapped address spaces:\n\n")
    write(f"  {'Start Addr':>18} {'  End Addr':>18} {'      Size':>10} {'    Offset':>10}  Perms  objfile\n")
    for line in lines:
        fields = line.split(maxsplit=5)
        if len(fields) < 5:
            continue
        low, _, high = fields[0].partition("-")
        start, end, offset = int(low, 16), int(high, 16), int(fields[2], 16)
        name = fields[5] if len(fields) > 5 else ""
        write(f"  {start:>#18x} {end:>#18x} {end - start:>#10x} {offset:>#10x}  {fields[1]:<5}  {name}\n")
