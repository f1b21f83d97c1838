"""The fuzz targets by name, for the test suite and the standalone runner.

A target owns whatever it needs (an adapter process, a stopped debuggee, a worker), checks
one generated case at a time (raising AssertionError for a finding) and, in `finish`, that
the thing fuzzed still works for well-formed use. Adding a front end (MI: command lines
with bad tokens, unterminated c-strings, unknown options, binary garbage) is one more
entry in TARGETS.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from hypothesis import strategies as st

from tests.support.build import Builder
from tests.support.dap_schema import DapSchema


class FuzzTarget(Protocol):
    name: str
    stats: Counter[str]  # outcomes seen (replies by kind, errors by type...), for the report

    def strategy(self) -> st.SearchStrategy[Any]: ...

    def check(self, case: Any) -> None: ...

    def finish(self) -> None:
        """After the cases: well-formed use still works (raises AssertionError if not)."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class FuzzContext:
    builder: Builder
    workdir: Path
    schema: DapSchema | None


def _dap_live(ctx: FuzzContext) -> FuzzTarget:
    from tests.fuzz.dap_target import LiveDap

    return LiveDap(ctx.schema, ctx.builder, ctx.workdir)


def _dap_inproc(ctx: FuzzContext) -> FuzzTarget:
    from tests.fuzz.dap_target import InProcessDap

    return InProcessDap(ctx.schema)


def _lazy(module: str, cls: str) -> Callable[[FuzzContext], FuzzTarget]:
    def make(ctx: FuzzContext) -> FuzzTarget:
        target: FuzzTarget = getattr(importlib.import_module(module), cls)(ctx)
        return target

    return make


TARGETS: dict[str, Callable[[FuzzContext], FuzzTarget]] = {
    "dap": _dap_live,
    "dap_inproc": _dap_inproc,
    "expr": _lazy("tests.fuzz.expr_target", "ExpressionTarget"),
    "console": _lazy("tests.fuzz.expr_target", "ConsoleTarget"),
    "symbols": _lazy("tests.fuzz.symbols_target", "SymbolsTarget"),
}
