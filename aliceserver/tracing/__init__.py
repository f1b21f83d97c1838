"""Trace and query: function call tracing recorded into a per-session SQLite store.

    store = TraceStore("prog-1", keep=False)
    tracer = Tracer(debugger, store, project_root="/src/project")
    tracer.add(["parse_*", "@file:lexer.c", "@usercode"])
    ...  # the session calls tracer.observe(event) for every engine event
    query(store, QueryFilters(kinds=("return",), function="parse_expr", min_duration_ms=1))
"""

from aliceserver.tracing.patterns import Pattern, parse_pattern
from aliceserver.tracing.query import KINDS, QueryFilters, QueryResult, TraceEvent, query
from aliceserver.tracing.store import DEFAULT_RETENTION, TraceStore, default_directory, purge_old
from aliceserver.tracing.tracer import FunctionStatus, TraceChange, Tracer, TraceStatus

__all__ = [
    "DEFAULT_RETENTION", "KINDS", "FunctionStatus", "Pattern", "QueryFilters", "QueryResult",
    "TraceChange", "TraceEvent", "TraceStatus", "TraceStore", "Tracer", "default_directory",
    "parse_pattern", "purge_old", "query",
]  # fmt: skip
