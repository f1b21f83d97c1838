"""x86-64 Linux system call names and numbers, as gdb knows them.

Read at run time, never copied here: gdb's own table (its syscalls/amd64-linux.xml) when
gdb is installed, else the kernel headers' asm/unistd_64.h.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from aliceserver.regexes import compiled_later

_GDB_TABLES = ("/usr/share/gdb/syscalls/amd64-linux.xml", "/usr/local/share/gdb/syscalls/amd64-linux.xml")
_HEADERS = ("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h")
_DEFINE = compiled_later(r"^#define\s+__NR_(\w+)\s+(\d+)\s*$", re.MULTILINE)


@dataclass
class SyscallTable:
    by_name: dict[str, int] = field(default_factory=dict)
    by_number: dict[int, str] = field(default_factory=dict)
    groups: dict[str, list[int]] = field(default_factory=dict)

    def name(self, number: int) -> str | None:
        return self.by_number.get(number)


def load_syscall_table() -> SyscallTable:
    # Imported here: a session reads the table only for a syscall catchpoint, and the XML
    # parser (with pathlib, which brought urllib and ipaddress) took 3 ms of every start.
    from xml.etree import ElementTree

    table = SyscallTable()
    for path in _GDB_TABLES:
        try:
            root = ElementTree.parse(path).getroot()
        except (OSError, ElementTree.ParseError):
            continue
        for entry in root.iter("syscall"):
            name, number = entry.get("name"), entry.get("number")
            if name is None or number is None or not number.isdigit():
                continue
            table.by_name[name] = int(number)
            table.by_number[int(number)] = name
            for group in (entry.get("groups") or "").split(","):
                if group:
                    table.groups.setdefault(group, []).append(int(number))
        return table
    for path in _HEADERS:
        try:
            with open(path) as handle:
                text = handle.read()
        except OSError:
            continue
        for name, number in _DEFINE().findall(text):
            table.by_name[name] = int(number)
            table.by_number[int(number)] = name
        break
    return table
