"""gdb's `info os [TYPE]` and `-info-os [TYPE]` (osdata.c): the operating system's tables
(processes, threads, files, sockets...; Eclipse CDT's attach dialog lists `processes`),
this machine's as gdb's Linux native target reads them from /proc, or the stub's
(`qXfer:osdata`) while one is connected."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.mi.output import Results, Value
from aliceserver.adapters.mi.registry import Context, MiError, MiRegistry, Reply
from aliceserver.debuggers.stubservices import stub_services
from aliceserver.errors import AliceError

if TYPE_CHECKING:  # imported at the first use: it imports socket and an XML parser (3 ms)
    from aliceserver.debuggers import osdata

_WIDTH = 10  # gdb's for every column


def _table(ctx: Context, kind: str) -> osdata.Table:
    from aliceserver.debuggers import osdata

    if ctx.session.inferior.core is not None:  # a core file's target has no OS data: gdb's error alone
        raise MiError("Can not fetch data now.")
    services = stub_services(ctx.session.debugger)
    try:
        if services is None:
            table = osdata.native(kind)
        else:
            xml = services.osdata(kind)
            if xml is None:  # a stub without osdata, as a core
                raise MiError("Can not fetch data now.")
            table = osdata.parse(xml)
    except AliceError as error:
        raise MiError(str(error)) from None
    if table is None:
        ctx.log("warning: Empty data returned by target.  Wrong osdata type?\n")
        raise MiError("Can not fetch data now.")
    if not table and not kind:
        raise MiError("Available types of OS data not reported.")
    return table


def _mi(ctx: Context, args: list[str]) -> Reply:
    if len(args) > 1:
        raise MiError("Usage: -info-os [INFOTYPE]")
    table = _table(ctx, args[0] if args else "")
    columns = [name for name, _ in table[-1]] if table else []
    pairs: list[tuple[str, Value]] = [("nr_rows", str(len(table))), ("nr_cols", str(len(columns)))]
    pairs.append(("hdr", [{"width": str(_WIDTH), "alignment": "-1", "col_name": f"col{ix}", "colhdr": name}
                          for ix, name in enumerate(columns)]))  # fmt: skip
    if columns:  # gdb leaves out the body of a table without columns
        pairs.append(("body", Results([("item", Results([(f"col{ix}", value) for ix, (_, value) in enumerate(item)]))
                                       for item in table], as_list=True)))  # fmt: skip
    return [("OSDataTable", Results(pairs))]


def _row(cells: list[str]) -> str:
    return "".join(f"{cell:<{_WIDTH}} " for cell in cells) + "\n"


def info_os(ctx: Context, text: str) -> None:
    """The console's table: each field padded to 10 and a space; the list of types
    without its Title column (a menu's, which gdb keeps for MI)."""
    kind = text.strip()
    table = _table(ctx, kind)
    if not table:
        return
    skip = next((ix for ix, (name, _) in enumerate(table[-1]) if name == "Title"), -1) if not kind else -1
    lines = [_row([name for ix, (name, _) in enumerate(table[-1]) if ix != skip])]
    lines += [_row([value for ix, (_, value) in enumerate(item) if ix != skip]) for item in table]
    ctx.console("".join(lines))


def register(registry: MiRegistry) -> None:
    registry.add("info-os", _mi)
