"""The names a watched expression reads (gdb's innermost block tracker): whether it reads
the frame's locals, so that the watch dies with the frame (see ptrace/watchscope.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from aliceserver.debuggers.source.variables import FrameView, ProcessEvalSymbols
from aliceserver.debuggers.symbols.dwarf.types import Type
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.debuggers.symbols.dwarf.variable import VarKind

_FRAME_KINDS = (VarKind.LOCAL, VarKind.PARAMETER)  # static locals need no frame


@dataclass(slots=True)
class NameRecorder:
    """The evaluator's symbols, noting every name it looks up (gdb's innermost block
    tracker): whether a watched expression reads the frame's locals."""

    inner: ProcessEvalSymbols
    names: list[str] = field(default_factory=list)

    @property
    def frame(self) -> FrameView:
        return self.inner.frame

    @property
    def cplus(self) -> bool:
        return self.inner.cplus

    @property
    def rust_scope(self) -> str | None:
        return self.inner.rust_scope

    def lookup(self, name: str) -> Value | None:
        self.names.append(name)
        return self.inner.lookup(name)

    def lookup_local(self, name: str) -> Value | None:
        self.names.append(name)
        return self.inner.lookup_local(name)

    def lookup_type(self, name: str) -> Type | None:
        return self.inner.lookup_type(name)

    def uses_frame(self) -> bool:
        frame_symbols = self.inner.frame_symbols
        scope = frame_symbols.scope if frame_symbols is not None else None
        if scope is None:
            return False
        return any(
            (var := scope.lookup(name)) is not None and var.kind in _FRAME_KINDS for name in self.names
        )
