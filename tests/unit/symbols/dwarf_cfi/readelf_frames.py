"""Parse `readelf -wF` (the interpreted CFI tables) to check CfiTable rows against binutils."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field

from aliceserver.debuggers.symbols.dwarf.cfa_program import RuleKind, UnwindRow
from aliceserver.debuggers.symbols.dwarf.unwind import DWARF_REGISTERS

_FDE = re.compile(r"^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)")
_NAMES = {name: number for number, name in DWARF_REGISTERS.items()}
_NAMES["ra"] = 16


@dataclass
class ReadelfFde:
    section: str
    low: int
    high: int
    columns: list[str] = field(default_factory=list)
    rows: list[tuple[int, list[str]]] = field(default_factory=list)  # (loc, [cfa, cells...])


def readelf_fdes(path: str) -> list[ReadelfFde]:
    out = subprocess.run(
        ["readelf", "-wF", path], capture_output=True, text=True, check=False
    ).stdout
    fdes: list[ReadelfFde] = []
    section = ""
    current: ReadelfFde | None = None
    for line in out.splitlines():
        if line.startswith("Contents of the "):
            section = line.split()[3]
            current = None
            continue
        match = _FDE.match(line)
        if match:
            current = ReadelfFde(section, int(match.group(1), 16), int(match.group(2), 16))
            fdes.append(current)
            continue
        if current is None:
            continue
        parts = line.split()
        if not parts:
            current = None
        elif parts[0] == "LOC":
            current.columns = parts[2:]
        elif re.fullmatch(r"[0-9a-f]{8,16}", parts[0]):
            # A register rule prints as "r9 (r9)": keep the number only.
            cells = [cell for cell in parts[1:] if not cell.startswith("(")]
            current.rows.append((int(parts[0], 16), cells))
    return fdes


def describe_cfa(row: UnwindRow) -> str:
    if row.cfa.expression is not None:
        return "exp"
    name = DWARF_REGISTERS.get(row.cfa.register, f"r{row.cfa.register}")
    return f"{name}{row.cfa.offset:+d}"


def describe_rule(row: UnwindRow, column: str) -> str:
    """A rule the way readelf prints it in one column."""
    number = _NAMES.get(column)
    if number is None and re.fullmatch(r"r\d+", column):
        number = int(column[1:])
    rule = None if number is None else row.rule(number)
    if rule is None or rule.kind is RuleKind.UNDEFINED:
        return "u"
    if rule.kind is RuleKind.SAME_VALUE:
        return "s"
    if rule.kind is RuleKind.OFFSET:
        return f"c{rule.value:+d}"
    if rule.kind is RuleKind.VAL_OFFSET:
        return f"v{rule.value:+d}"
    if rule.kind is RuleKind.REGISTER:
        return f"r{rule.value}"
    if rule.kind is RuleKind.EXPRESSION:
        return "exp"
    return "vexp"
