"""A window of a huge array's children makes only the window's var objects (all 65536
were made before the window was cut: a minute under load), yet answers as gdb's, which
made them all."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from aliceserver.adapters.mi.varobj import Varobj, VarobjStore
from aliceserver.debuggers.model import VariableInfo

SIZE = 65536


class _Engine:
    def __init__(self) -> None:
        self.made = 0  # children the engine described

    def variable_children(self, reference: int, start: int = 0, count: int | None = None) -> list[VariableInfo]:
        count = SIZE - start if count is None else min(count, SIZE - start)
        self.made += count
        return [VariableInfo(f"[{i}]", "int", "0") for i in range(start, start + count)]


def _store() -> tuple[VarobjStore, _Engine, Varobj]:
    engine = _Engine()
    session: Any = SimpleNamespace(debugger=engine)
    store = VarobjStore(session)
    var = Varobj("vw", "g_wide", "g_wide", f"int [{SIZE}]", f"[{SIZE}]", SIZE, True, False, False, None, None)
    store.vars[var.name] = var
    array = VariableInfo("g_wide", var.type, "", reference=1, indexed_children=SIZE, aggregate=True)
    store._info = lambda _var: array  # type: ignore[method-assign]
    return store, engine, var


def test_a_window_makes_only_its_children() -> None:
    store, engine, var = _store()
    children, total = store.window(var, 0, 12)
    assert [child.name for child in children] == [f"vw.{i}" for i in range(12)] and total == SIZE
    assert engine.made == 12 and len(store.vars) == 1 + 12
    children, total = store.window(var, SIZE - 2, SIZE + 4)
    assert [child.exp for child in children] == [str(SIZE - 2), str(SIZE - 1)]
    assert len(store.vars) == 1 + 14


def test_an_element_the_window_left_out_is_there_when_named_and_deleted_as_gdb() -> None:
    store, engine, var = _store()
    store.window(var, 0, 12)
    assert store.get("vw.100").exp == "100" and engine.made == 13
    assert store.delete(var) == 1 + SIZE  # gdb made every element and deletes them all
    assert list(store.vars) == []
