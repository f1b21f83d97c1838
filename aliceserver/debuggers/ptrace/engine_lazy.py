"""The engine's parts that a session may never use, made (and their modules imported) on
first use: call tracing (calltrace.py, with the jump patches' recorder), `gcore`
(gcore.py), and the symbol queries of `info scope`/`info line`, symbol search and source
file lists (debuggers/source: symbolinfo.py, symbolsearch.py, sourcefiles.py).

Made at the engine's creation, they cost every start their imports (the recorder's trace
rings and trampolines among them) though a session to a first stop uses neither.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from aliceserver.debuggers.ptrace.binding import Libc
from aliceserver.debuggers.ptrace.state import ProcessAccess
from aliceserver.debuggers.ptrace.traps import TrapTable
from aliceserver.debuggers.symbols.disasm import Disassembler
from aliceserver.debuggers.symbols.process import ProcessSymbols

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.calltrace import CallTracer
    from aliceserver.debuggers.ptrace.gcore import CoreWriter
    from aliceserver.debuggers.ptrace.patched_calltrace import CallRecorder
    from aliceserver.debuggers.source.frames import Frames
    from aliceserver.debuggers.source.sourcefiles import SourceFileListing
    from aliceserver.debuggers.source.symbolinfo import SymbolQueries
    from aliceserver.debuggers.source.symbolsearch import SymbolSearch


class LazyParts:
    """One engine's parts of those kinds, each made once, by whichever thread asks first.
    `frames` gives the engine's Frames (made after this)."""

    def __init__(self, access: ProcessAccess, *, traps: TrapTable, symbols: ProcessSymbols,
                 disassembler: Disassembler, libc: Libc, frames: Callable[[], Frames]) -> None:  # fmt: skip
        self._access = access
        self._frames = frames
        self._traps = traps
        self._symbols = symbols
        self._disassembler = disassembler
        self._libc = libc
        self._lock = threading.Lock()
        self._call_tracer: CallTracer | None = None
        self._core_writer: CoreWriter | None = None
        self._symbol_queries: SymbolQueries | None = None
        self._symbol_search: SymbolSearch | None = None
        self._source_files: SourceFileListing | None = None

    @property
    def call_tracer(self) -> CallTracer:
        with self._lock:
            if self._call_tracer is None:
                from aliceserver.debuggers.ptrace.calltrace import CallTracer

                access = self._access
                self._call_tracer = CallTracer(
                    access, inferior=lambda: access.inferior, require=access.require, traps=self._traps,
                    symbols=self._symbols, disassembler=self._disassembler, libc=self._libc,
                    patches=access.patches,
                )  # fmt: skip
            return self._call_tracer

    @property
    def call_recorder(self) -> CallRecorder | None:
        """Calls recorded by jump patches (patched_calltrace.py), for tracing/."""
        return self.call_tracer.recorder

    @property
    def core_writer(self) -> CoreWriter:
        with self._lock:
            if self._core_writer is None:
                from aliceserver.debuggers.ptrace.gcore import CoreWriter

                access = self._access
                self._core_writer = CoreWriter(access, lambda: access.inferior, self._traps, self._libc)
            return self._core_writer

    @property
    def symbol_queries(self) -> SymbolQueries:
        with self._lock:
            if self._symbol_queries is None:
                from aliceserver.debuggers.source.symbolinfo import SymbolQueries

                access = self._access
                self._symbol_queries = SymbolQueries(access, self._frames().frame_view, access.link_view)
            return self._symbol_queries

    @property
    def symbol_search(self) -> SymbolSearch:
        with self._lock:
            if self._symbol_search is None:
                from aliceserver.debuggers.source.symbolsearch import SymbolSearch

                self._symbol_search = SymbolSearch(self._access)
            return self._symbol_search

    @property
    def source_files(self) -> SourceFileListing:
        with self._lock:
            if self._source_files is None:
                from aliceserver.debuggers.source.sourcefiles import SourceFileListing

                self._source_files = SourceFileListing(self._access)
            return self._source_files
