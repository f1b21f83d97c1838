"""IDebugger is the front ends' contract: each of its members is used by one of them (an
engine-only or test-only method belongs on the engine, not in the contract)."""

from __future__ import annotations

import re
from pathlib import Path

from aliceserver.debuggers.base import IDebugger

PACKAGE = Path(__file__).resolve().parents[3] / "aliceserver"
# Where the engine's users live: the protocol front ends and the call tracer.
USERS = (PACKAGE / "adapters", PACKAGE / "tracing")


def _members() -> set[str]:
    return {name for name in vars(IDebugger) if not name.startswith("_")} | set(
        IDebugger.__annotations__
    )


def test_every_member_of_the_contract_is_used_by_a_front_end() -> None:
    text = "\n".join(
        path.read_text(encoding="utf-8") for folder in USERS for path in folder.rglob("*.py")
    )
    unused = sorted(name for name in _members() if not re.search(rf"\.{name}\b", text))
    assert not unused, f"IDebugger members no front end uses: {unused}"


def test_engine_only_methods_are_not_in_the_contract() -> None:
    members = _members()
    for name in ("write_stdin", "close_stdin", "write_vector_register", "insert_breakpoint",
                 "remove_breakpoint", "backtrace"):  # fmt: skip
        assert name not in members, name
