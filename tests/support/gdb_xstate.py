"""Where gdb 13 cannot be the oracle of a register write.

gdb 13.1 (and its gdbserver) writes a thread's x87, SSE and AVX registers back through
PTRACE_SETREGSET NT_X86_XSTATE with a buffer of its own fixed size (2696 bytes: up to
PKRU); on a CPU whose XSAVE area is larger (Intel AMX's XTILECFG and XTILEDATA: 11008
bytes) the kernel refuses it (EFAULT) and the register keeps its value. gdb then prints
`GDB_WRITE_ERROR`, gdbserver `GDBSERVER_WRITE_ERROR` on its stderr. There a test checks our
output against the values the test wrote and the process then holds; wherever gdb's writes
work it stays the oracle. Nothing here names a CPU: gdb's own error tells.
"""

from __future__ import annotations

import os
import select

from tests.support.gdbserver import GdbServer

GDB_WRITE_ERROR = "Couldn't write extended state status: Bad address."
GDBSERVER_WRITE_ERROR = "Warning: ptrace(regsets_store_inferior_registers): Bad address"


MI_WRITE_ERROR = f'^error,msg="{GDB_WRITE_ERROR}"'


def gdb_could_not_write(*texts: str) -> bool:
    """Whether gdb printed its XSAVE write error (a register write refused), on the console
    or as an MI result, in any of TEXTS."""
    return any(line in (GDB_WRITE_ERROR, MI_WRITE_ERROR) for text in texts for line in text.splitlines())


def gdbserver_could_not_write(server: GdbServer) -> bool:
    """Whether gdbserver has warned, so far, that it could not store the XSAVE registers
    (what it printed since it started listening is read without waiting)."""
    stderr = server.process.stderr
    assert stderr is not None
    while select.select([stderr], [], [], 0)[0]:
        chunk = os.read(stderr.fileno(), 4096)
        if not chunk:
            break
        server.stderr += chunk
    return GDBSERVER_WRITE_ERROR.encode() in server.stderr
