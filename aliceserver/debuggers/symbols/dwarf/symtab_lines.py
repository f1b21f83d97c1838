"""One source file's line table as gdb builds it from a line program (its symtab's
linetable, which `-symbol-list-lines` and `maint info line-table` print).

decode_rows already keeps the rows gdb's DWARF reader (lnp_state_machine::record_line)
keeps (no line 0, no repeat of a line with a discriminator). What a file's table adds: a
line-0 end marker where the program switches to another file or ends a sequence, which
(buildsym's record_line) replaces the file's rows at its own address and is dropped when
it ends nothing. The table is then sorted by address, end markers first at an address.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from aliceserver.debuggers.symbols.dwarf.lines import END_SEQUENCE, IS_STMT, LineRows


@dataclass(slots=True)
class _Subfile:
    """The entries recorded so far for the wanted file: (address, line), 0 ends a run."""

    entries: list[tuple[int, int]] = field(default_factory=list)

    def record(self, line: int, address: int) -> None:
        if line == 0:  # an end marker replaces the rows at its address; ends nothing: none
            last_line: int | None = None
            while self.entries:
                last_address, last_line = self.entries[-1]
                if last_address != address:
                    break
                self.entries.pop()
            if last_line is None or last_line == 0:
                return
        self.entries.append((address, line))


def file_line_table(rows: LineRows, subfile_of: dict[int, int], wanted: int) -> list[tuple[int, int]]:
    """(address, line) of the rows gdb keeps for the file `wanted`, by address; line 0
    marks the end of a run. `subfile_of`: DWARF file number -> file (path) id; numbers
    naming one path are one subfile, as gdb's subfiles are by name."""
    table = _Subfile()
    last_subfile: int | None = None
    last_address: int | None = None
    stmt_at_address = False
    for address, number, line, flags in zip(rows.address, rows.file, rows.line, rows.flags, strict=True):
        end_sequence = bool(flags & END_SEQUENCE)
        subfile = subfile_of.get(number, -1 - number)  # a number naming no known path
        file_changed = subfile != last_subfile
        ignore = (file_changed and not end_sequence and last_address == address
                  and not flags & IS_STMT and stmt_at_address) or (not end_sequence and line == 0)
        if ((file_changed and not ignore) or end_sequence) and last_subfile == wanted:
            table.record(0, address)
        if not end_sequence and not ignore:
            if subfile == wanted:
                table.record(line, address)
            last_subfile = subfile
        if last_address != address:
            stmt_at_address, last_address = False, address
        stmt_at_address |= bool(flags & IS_STMT)
        if end_sequence:  # gdb reads each sequence with a fresh state machine
            last_subfile, last_address, stmt_at_address = None, None, False
    # stable: rows at one address keep their order, an end marker goes first
    return sorted(table.entries, key=lambda entry: (entry[0], entry[1] != 0))
