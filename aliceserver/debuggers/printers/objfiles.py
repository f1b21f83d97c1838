"""A session's printers: gdb's objfiles and progspace with their printer lists, the lists
of the `gdb` module itself, and what printers may ask (parameters, convenience values)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aliceserver.debuggers.symbols.dwarf.expr.convert import Builtins
from aliceserver.debuggers.symbols.dwarf.types import Type

# `gdb.parameter` answers for what printers ask; the values gdb starts with.
DEFAULT_PARAMETERS: dict[str, Any] = {
    "print elements": 200, "print repeats": 10, "print pretty": False, "print object": False,
    "print static-members": True, "print vtbl": False, "print demangle": True,
    "print max-depth": 20, "print address": True, "print symbol": True, "print null-stop": False,
    "print union": True, "print array": False, "print array-indexes": False,
    "python print-stack": "message", "auto-load python-scripts": True, "pagination": False,
    "width": 0, "height": 0, "language": "auto", "charset": "auto", "host-charset": "UTF-8",
    "target-charset": "UTF-8", "target-wide-charset": "UTF-32",
}  # fmt: skip


class Objfile:
    """gdb.Objfile: one loaded image and the printers its scripts registered."""

    def __init__(self, filename: str | None, session: PrinterSession) -> None:
        self.filename = filename
        self.username = filename
        self.owner = None
        self.build_id = None
        self.pretty_printers: list[Any] = []
        self.type_printers: list[Any] = []
        self.xmethods: list[Any] = []
        self.frame_filters: dict[str, Any] = {}
        self.frame_unwinders: list[Any] = []
        self._session = session

    @property
    def progspace(self) -> Progspace:
        return self._session.progspace

    def is_valid(self) -> bool:
        return True

    def lookup_global_symbol(self, name: str, domain: object = None) -> Any:
        return None

    def lookup_static_symbol(self, name: str, domain: object = None) -> Any:
        return None

    def __repr__(self) -> str:
        return f"<gdb.Objfile filename={self.filename}>"


class Progspace:
    """gdb.Progspace: the program being debugged."""

    def __init__(self, session: PrinterSession) -> None:
        self._session = session
        self.pretty_printers: list[Any] = []
        self.type_printers: list[Any] = []
        self.xmethods: list[Any] = []
        self.frame_filters: dict[str, Any] = {}
        self.frame_unwinders: list[Any] = []

    @property
    def filename(self) -> str | None:
        return self._session.program

    def objfiles(self) -> list[Objfile]:
        return list(self._session.objfiles.values())

    def solib_name(self, address: int) -> str | None:
        return None

    def block_for_pc(self, pc: int) -> None:
        return None

    def find_pc_line(self, pc: int) -> None:
        return None

    def is_valid(self) -> bool:
        return True


@dataclass
class PrinterSession:
    """Everything of one debugging session that printers see through `gdb`."""

    program: str | None = None
    builtins: Builtins = field(default_factory=Builtins)
    type_cache: dict[str, Type | None] = field(default_factory=dict)
    objfiles: dict[str, Objfile] = field(default_factory=dict)
    pretty_printers: list[Any] = field(default_factory=list)
    type_printers: list[Any] = field(default_factory=list)
    xmethods: list[Any] = field(default_factory=list)
    frame_filters: dict[str, Any] = field(default_factory=dict)
    frame_unwinders: list[Any] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_PARAMETERS))
    convenience: dict[str, Any] = field(default_factory=dict)
    # `__main__` of the `python` commands: one namespace for all of them, as in gdb.
    python_scope: dict[str, Any] = field(default_factory=lambda: {"__name__": "__main__"})
    progspace: Progspace = field(init=False)

    def __post_init__(self) -> None:
        self.progspace = Progspace(self)

    def objfile(self, path: str) -> Objfile:
        found = self.objfiles.get(path)
        if found is None:
            found = self.objfiles[path] = Objfile(path, self)
        return found

    def printer_lists(self) -> list[list[Any]]:
        """Where gdb looks for a value's printer, in its order: objfiles, progspace, gdb."""
        lists = [o.pretty_printers for o in self.objfiles.values()]
        return [*lists, self.progspace.pretty_printers, self.pretty_printers]

    def for_new_program(self) -> PrinterSession:
        """The session of the next program run: what the user gave (gdb's own printer lists,
        the progspace's, parameters, convenience values, `python`'s `__main__`) kept, as gdb
        keeps them across `run`; the images' objfiles start empty (their scripts load anew)."""
        kept = PrinterSession(
            program=self.program, builtins=self.builtins, pretty_printers=self.pretty_printers,
            type_printers=self.type_printers, xmethods=self.xmethods, frame_filters=self.frame_filters,
            frame_unwinders=self.frame_unwinders, parameters=self.parameters, convenience=self.convenience,
            python_scope=self.python_scope,
        )  # fmt: skip
        old, new = self.progspace, kept.progspace
        new.pretty_printers, new.type_printers, new.xmethods = old.pretty_printers, old.type_printers, old.xmethods
        new.frame_filters, new.frame_unwinders = old.frame_filters, old.frame_unwinders
        return kept

    def forget_types(self) -> None:
        """Types are looked up again after the program's images change."""
        self.type_cache.clear()
