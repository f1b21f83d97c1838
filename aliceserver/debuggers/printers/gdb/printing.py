"""gdb.printing: printer collections and their registration (gdb's own API, written anew)."""

from __future__ import annotations

import re
from typing import Any

from aliceserver.debuggers.printers import gdb
from aliceserver.debuggers.printers.gdb import types as gdb_types


class PrettyPrinter:
    """A named printer that may hold subprinters (each enabled or not)."""

    def __init__(self, name: str, subprinters: list[Any] | None = None) -> None:
        self.name = name
        self.subprinters = subprinters
        self.enabled = True

    def __call__(self, val: Any) -> Any:
        raise NotImplementedError("PrettyPrinter __call__")


class SubPrettyPrinter:
    def __init__(self, name: str) -> None:
        self.name = name
        self.enabled = True


class RegexpCollectionPrettyPrinter(PrettyPrinter):
    """Printers chosen by a regular expression over the value's basic type name."""

    class RegexpSubprinter(SubPrettyPrinter):
        def __init__(self, name: str, regexp: str, gen_printer: Any) -> None:
            super().__init__(name)
            self.regexp = regexp
            self.gen_printer = gen_printer
            self.compiled_re = re.compile(regexp)

    def __init__(self, name: str) -> None:
        super().__init__(name, [])

    def add_printer(self, name: str, regexp: str, gen_printer: Any) -> None:
        assert self.subprinters is not None
        self.subprinters.append(self.RegexpSubprinter(name, regexp, gen_printer))

    def __call__(self, val: Any) -> Any:
        basic = gdb_types.get_basic_type(val.type)
        typename = basic.tag or basic.name
        if not typename:
            return None
        for printer in self.subprinters or ():
            if printer.enabled and printer.compiled_re.search(typename):
                return printer.gen_printer(val)
        return None


class _EnumInstance:
    def __init__(self, enumerators: list[Any], val: Any) -> None:
        self.enumerators = enumerators
        self.val = val

    def to_string(self) -> str:
        flag_list = []
        v = int(self.val)
        any_found = False
        for e_name, e_value in self.enumerators:
            if v & e_value != 0:
                flag_list.append(e_name)
                v = v & ~e_value
                any_found = True
        if not any_found or v != 0:
            flag_list.append("<unknown: 0x%x>" % v)
        return "0x%x [%s]" % (int(self.val), " | ".join(flag_list))


class FlagEnumerationPrinter(PrettyPrinter):
    """Shows a flag enum's value as its set flags."""

    def __init__(self, enum_type: str) -> None:
        super().__init__(enum_type)
        self.initialized = False

    def __call__(self, val: Any) -> Any:
        if not self.initialized:
            self.initialized = True
            flags = gdb.lookup_type(self.name)
            self.enumerators = [(f.name, f.enumval) for f in flags.fields()]
            self.enumerators.sort(key=lambda x: x[1])
        return _EnumInstance(self.enumerators, val) if self.enabled else None


def register_pretty_printer(obj: Any, printer: Any, replace: bool = False) -> None:
    """Add `printer` first in the list of `obj` (an Objfile, a Progspace, or None: gdb's)."""
    if not hasattr(printer, "__name__") and not hasattr(printer, "name"):
        raise TypeError("printer missing attribute: name")
    if hasattr(printer, "name") and not hasattr(printer, "enabled"):
        raise TypeError("printer missing attribute: enabled")
    if not callable(printer):
        raise TypeError("printer missing attribute: __call__")
    if hasattr(printer, "name") and ";" in printer.name:
        raise ValueError("semicolon ';' in printer name")
    if obj is None:
        obj = gdb
    printers = obj.pretty_printers
    if hasattr(printer, "name"):
        for i, existing in enumerate(printers):
            if hasattr(existing, "name") and existing.name == printer.name:
                if not replace:
                    raise RuntimeError("pretty-printer already registered: %s" % printer.name)
                del printers[i]
                break
    printers.insert(0, printer)
