"""The symbols fuzz worker: loads one (mutated) binary per input line and queries it the way
the engine does; prints one JSON line per input. Run by tests/fuzz/symbols_target.py in a
child process with an address-space limit, so that a hang or a runaway allocation is
caught there (killed, reported) instead of taking the fuzzer down.

Input lines: `PATH SOURCE_NAME`. Output: {"errors": [typed error texts],
"failures": [tracebacks of anything else], "calls": N}.
"""

from __future__ import annotations

import json
import resource
import sys
import traceback
from collections.abc import Callable
from functools import partial
from typing import Any

from aliceserver.debuggers.symbols.dwarf.cfi import CfiTable
from aliceserver.debuggers.symbols.dwarf.format import format_value
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.types import type_name
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.errors import AliceError

MEMORY_LIMIT = 1536 * 1024 * 1024


class ZeroFrame:
    """A frame at `pc` whose memory reads as a repeating pattern and registers as 0x1000."""

    load_bias = 0
    fs_base = None

    def __init__(self, pc: int) -> None:
        self.pc = pc

    def read_memory(self, address: int, size: int) -> bytes:
        if size < 0 or size > 1 << 20 or address < 0x1000:
            raise OSError(14, "bad address")
        return (b"\x10\x20\x00\x00\x00\x00\x00\x00" * (size // 8 + 1))[:size]

    def register(self, regno: int) -> int | None:
        return 0x7FFF0000

    def cfa(self) -> int | None:
        return 0x7FFF0100

    def write_memory(self, address: int, data: bytes) -> None:
        raise OSError(14, "read-only")

    def write_register(self, regno: int, value: int) -> None:
        raise OSError(14, "read-only")


class Session:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.failures: list[str] = []
        self.calls = 0

    def call(self, what: str, action: Callable[[], Any]) -> Any:
        self.calls += 1
        try:
            return action()
        except AliceError as error:  # the clear error the engine turns into a reply
            self.errors.append(f"{what}: {type(error).__name__}: {error}"[:300])
        except RecursionError:
            self.failures.append(f"{what}: RecursionError (a cycle?)\n{_short_tb()}")
        except Exception:  # noqa: BLE001 - the finding
            self.failures.append(f"{what}:\n{traceback.format_exc(limit=-6)}")
        return None


def _short_tb() -> str:
    return "".join(traceback.format_exc(limit=-4).splitlines(keepends=True)[-12:])


def exercise(path: str, source: str) -> Session:
    s = Session()
    image: ElfImage | None = s.call("ElfImage.load", lambda: ElfImage.load(path))
    if image is None:
        return s
    functions = s.call("function_symbols", image.function_symbols) or []
    addresses = [address for _, address, _ in functions[:40]]
    for name in ("leaf", "main", "show_values", "global_counter", "nosuch"):
        symbol = s.call(f"find_symbol {name}", partial(image.find_symbol, name))
        if symbol is not None:
            addresses.append(symbol.address)
    for address in addresses:
        s.call("symbol_at", partial(image.symbol_at, address))
    table = s.call("CfiTable.load", lambda: CfiTable.load(image))
    if table is not None:
        for address in addresses:
            s.call("row_at", partial(table.row_at, address))
            s.call("row_at+5", partial(table.row_at, address + 5))
    info = s.call("DebugInfo.load", lambda: DebugInfo.load(image, cache=None, debug_dirs=()))
    if info is not None:
        s.call("source_files", info.source_files)
        for line in (1, 45, 83, 111, 10**9):
            s.call("resolve_line", partial(info.resolve_line, source, line))
        for name in ("leaf", "main", "nosuch"):
            s.call("functions_named", partial(info.functions_named, name))
        for address in addresses:
            s.call("location_at", partial(info.location_at, address))
            s.call("function_at", partial(info.function_at, address))
            s.call("line_range_at", partial(info.line_range_at, address))
            s.call("next_row_address", partial(info.next_row_address, address))
    module: ModuleSymbols | None = s.call("ModuleSymbols", lambda: ModuleSymbols(image))
    if module is None or not s.call("has_dwarf", lambda: module.has_dwarf):
        return s
    frame = ZeroFrame(0x1000)
    for name in ("global_counter", "numbers", "global_text", "static_counter", "nosuch"):
        var = s.call(f"find_global {name}", partial(module.find_global, name))
        if var is not None:
            value = s.call("value_of", partial(module.value_of, var, frame))
            if value is not None:
                s.call("format_value", partial(format_value, value))
    for name in ("struct outer", "struct inner", "enum color", "int", "struct nosuch"):
        found = s.call(f"find_type {name}", partial(module.find_type, name))
        if found is not None:
            s.call("type_name", partial(type_name, found))
    for address in addresses[:25]:
        here = ZeroFrame(address + 4)
        scope = s.call("frame_scope", partial(module.frame_scope, here))
        if scope is None:
            continue
        variables = (s.call("locals", scope.locals) or []) + (s.call("arguments", scope.arguments) or [])
        for var in variables[:12]:
            value = s.call("value_of", partial(scope.value_of, var, here))
            if value is not None:
                s.call("format_value", partial(format_value, value))
    return s


def main() -> int:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    sys.setrecursionlimit(4000)
    for line in sys.stdin:
        path, _, source = line.strip().partition(" ")
        try:
            session = exercise(path, source)
            result = {"errors": session.errors[:20], "failures": session.failures[:5], "calls": session.calls}
        except MemoryError:
            result = {"errors": [], "failures": ["MemoryError: over the worker's memory limit"], "calls": 0}
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
