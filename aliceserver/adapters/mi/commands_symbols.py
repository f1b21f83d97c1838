"""MI's symbol queries (gdb's mi/mi-symbol-cmds.c): -symbol-info-functions,
-symbol-info-variables, -symbol-info-types, -symbol-info-modules and the Fortran module
listings."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.adapters.mi.frames import hex16
from aliceserver.adapters.mi.output import Value
from aliceserver.adapters.mi.parser import getopt
from aliceserver.adapters.mi.registry import Context, MiError, MiRegistry, Reply
from aliceserver.adapters.mi.session import MiSession
from aliceserver.debuggers.model import SymbolDomain, SymbolSearchQuery, SymbolSearchResult
from aliceserver.errors import ProtocolError


def shown_address(session: MiSession) -> Callable[[int], int]:
    """How a program symbol's address is shown: before `run` its link-time address (as
    gdb, which has not loaded the program; our symbol probe has), relocated after. Its
    end (`_end`, one past the image) counts too."""
    if session.inferior.process is not None or session.inferior.probe_pid is None:
        return lambda address: address
    main = next((m for m in session.debugger.modules() if m.is_main), None)
    if main is None:
        return lambda address: address
    return lambda address: address - main.base if main.low <= address <= main.high else address


def _max_results(text: str | None) -> int | None:
    """gdb's parse_max_results_option: a decimal count, nothing else."""
    if text is None:
        return None
    if not text.isdigit():
        raise MiError("invalid value for --max-results argument")
    return int(text)


def _search(ctx: Context, command: str, args: list[str], domain: SymbolDomain) -> Reply:
    long: tuple[str, ...] = ("name=", "max-results=")
    if domain is not SymbolDomain.TYPES:
        long += ("type=", "include-nondebug")
    options = getopt(command, args, long=long)
    query = SymbolSearchQuery(
        domain,
        name_regex=options.get("name"),
        type_regex=options.get("type"),
        include_nondebug=options.has("include-nondebug"),
        max_results=_max_results(options.get("max-results")),
        program_only=ctx.session.inferior.process is None and not ctx.session.inferior.ran,  # (see _info_symbols)
    )
    session = ctx.session
    session.ensure_symbols()
    found = session.debugger.search_symbols(query) if session.has_symbols() else SymbolSearchResult((), ())
    return [("symbols", symbols_value(found, domain, shown_address(session)))]


def symbols_value(found: SymbolSearchResult, domain: SymbolDomain, shown: Callable[[int], int]) -> Value:
    """gdb's mi_symbol_info output: `debug` grouped by file, then `nondebug`; each only
    when it has entries."""
    tuple_: dict[str, Value] = {}
    if found.debug:
        files: list[dict[str, Value]] = []
        for entry in found.debug:
            if not files or files[-1]["filename"] != entry.file:
                files.append({"filename": entry.file, "fullname": entry.fullname, "symbols": []})
            fields: dict[str, Value] = {"line": str(entry.line)} if entry.line else {}
            fields["name"] = entry.name
            if domain is not SymbolDomain.TYPES:
                fields["type"] = entry.type
                fields["description"] = entry.description
            symbols = files[-1]["symbols"]
            assert isinstance(symbols, list)
            symbols.append(fields)
        tuple_["debug"] = list(files)
    if found.nondebug:
        tuple_["nondebug"] = [{"address": f"0x{shown(entry.address):016x}", "name": entry.name} for entry in found.nondebug]
    return tuple_


def _functions(ctx: Context, args: list[str]) -> Reply:
    return _search(ctx, "symbol-info-functions", args, SymbolDomain.FUNCTIONS)


def _variables(ctx: Context, args: list[str]) -> Reply:
    return _search(ctx, "symbol-info-variables", args, SymbolDomain.VARIABLES)


def _types(ctx: Context, args: list[str]) -> Reply:
    return _search(ctx, "symbol-info-types", args, SymbolDomain.TYPES)


def _modules(ctx: Context, args: list[str]) -> Reply:
    """Fortran modules: we read none, as gdb finds none in C, C++ or Rust."""
    options = getopt("symbol-info-modules", args, long=("name=", "max-results="))
    _max_results(options.get("max-results"))
    return [("symbols", {})]


def _module_members(command: str) -> Callable[[Context, list[str]], Reply]:
    def handler(ctx: Context, args: list[str]) -> Reply:
        getopt(command, args, long=("module=", "name=", "type="))
        return [("symbols", [])]

    return handler


def _list_lines(ctx: Context, args: list[str]) -> Reply:
    """gdb's line table of a source file: every entry, line 0 where a run of code ends."""
    if len(args) != 1:
        raise MiError("-symbol-list-lines: Usage: SOURCE_FILENAME")
    session = ctx.session
    session.ensure_symbols()
    try:
        table = session.debugger.line_table(args[0])
    except ProtocolError:
        raise MiError("-symbol-list-lines: Unknown source file name.") from None
    return [("lines", [{"pc": hex16(address), "line": str(line)} for address, line in table])]


def register(registry: MiRegistry) -> None:
    registry.add("symbol-list-lines", _list_lines)
    registry.add("symbol-info-functions", _functions)
    registry.add("symbol-info-variables", _variables)
    registry.add("symbol-info-types", _types)
    registry.add("symbol-info-modules", _modules)
    registry.add("symbol-info-module-functions", _module_members("symbol-info-module-functions"))
    registry.add("symbol-info-module-variables", _module_members("symbol-info-module-variables"))
