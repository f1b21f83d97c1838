"""Core files (ELF ET_CORE, x86-64 Linux): a read-only view of a dead process, and the
writer of gdb's `gcore`. Independent of the ptrace engine, so that it can sit under the
engine's process interface as one more backend (as Delve's pkg/proc/core beside native).

Reading:
    open_core(path) -> CoreFile        CoreFormatError in gdb's words for what is no core
    CoreFile.threads                    CoreThread: tid, signal, registers (our engine's
                                        names), fpregs/xstate bytes, siginfo, vector_registers()
    CoreFile.read(address, size)        core bytes, then NT_FILE's mapped files, then zeros;
                                        CoreMemoryError "Cannot access memory at address 0x..."
    CoreFile.process, .auxv, .mapped_files, .signal, .siginfo, .warnings
    CoreFile.build_id(), .executable_path, .executable_warnings(program)

Writing (gcore):
    write_core(path, image)             image: CoreImage of ThreadImage (register bytes per
                                        thread), the process's maps, a memory reader, auxv;
                                        WrittenCore.warnings in gdb's words (unreadable memory)
    process_image(pid, threads)         a context giving the CoreImage of a stopped process
                                        from /proc/PID, the threads' registers read by the
                                        caller (the tracer thread alone may read them)

Warnings and errors carry gdb's text without its "warning: " prefix; the front end adds it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aliceserver.debuggers.core.errors import CoreFormatError, CoreMemoryError
    from aliceserver.debuggers.core.procfs import process_image
    from aliceserver.debuggers.core.reader import CoreFile, Segment, open_core
    from aliceserver.debuggers.core.records import MappedFile, PrPsInfo, PrStatus, SignalInfo
    from aliceserver.debuggers.core.threads import CoreThread
    from aliceserver.debuggers.core.writer import (
        CoreImage,
        MemoryMapping,
        ThreadImage,
        WrittenCore,
        write_core,
    )

# Each name's module, imported when the name is first read: a live session imports this
# package for a module or two (buildid.py, procfs.py), not the reader and writer.
_HOMES = {
    "CoreFormatError": "errors", "CoreMemoryError": "errors", "process_image": "procfs",
    "CoreFile": "reader", "Segment": "reader", "open_core": "reader", "MappedFile": "records",
    "PrPsInfo": "records", "PrStatus": "records", "SignalInfo": "records",
    "CoreThread": "threads", "CoreImage": "writer", "MemoryMapping": "writer",
    "ThreadImage": "writer", "WrittenCore": "writer", "write_core": "writer",
}  # fmt: skip


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "CoreFile",
    "CoreImage",
    "CoreFormatError",
    "CoreMemoryError",
    "CoreThread",
    "MappedFile",
    "MemoryMapping",
    "PrPsInfo",
    "PrStatus",
    "Segment",
    "SignalInfo",
    "ThreadImage",
    "WrittenCore",
    "open_core",
    "process_image",
    "write_core",
]
