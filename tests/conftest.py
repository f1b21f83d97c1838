"""Shared fixtures: test-program builds, a fresh debugger per test, and a leak check."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

# pytest runs with --import-mode=importlib, which leaves sys.path alone: make `tests.support`
# importable however pytest was started (`pytest`, `python -m pytest`, from any directory).
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.support.build import Builder, find_compiler  # noqa: E402
from tests.support.core_backend import (  # noqa: E402
    BACKEND_MARKERS,
    CALL_PASSED,
    CoreBackedDebugger,
    mark_core_xfails,
    note_outcome,
    parametrize_backends,
)
from tests.support.procs import kill_and_reap, wait_no_leftovers  # noqa: E402

ENGINE_MODULE = "aliceserver.debuggers.ptrace.engine"


@pytest.fixture(scope="session")
def builder(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Builder:
    """Compiles tests/programs/NAME.c once per session (cached by source hash and flags)."""
    compiler = find_compiler()
    if compiler is None:
        pytest.skip("gcc not found: integration tests compile tests/programs/*.c at test time")
    cache: Path
    if getattr(pytestconfig, "cache", None) is not None:
        cache = pytestconfig.cache.mkdir("aliceserver-programs")
    else:
        cache = tmp_path_factory.mktemp("programs")
    return Builder(cache_dir=Path(cache), compiler=compiler)


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    """After each test: no child, zombie or tracee of ours remains (kills stragglers, then fails)."""
    yield
    children, traced = wait_no_leftovers()
    if children or traced:
        kill_and_reap(children + traced)
        lines = [
            f"  pid {s.pid} {s.name!r} state {s.state} ppid {s.ppid} tracer {s.tracer_pid}"
            for s in children
        ]
        lines += [
            f"  traced: pid {s.pid} {s.name!r} state {s.state}" for s in traced if s not in children
        ]
        pytest.fail("the test left processes behind:\n" + "\n".join(lines), pytrace=False)


def pytest_configure(config: pytest.Config) -> None:
    for line in BACKEND_MARKERS:
        config.addinivalue_line("markers", line)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize_backends(metafunc)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_core_xfails(items)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    note_outcome(item, outcome.get_result())  # type: ignore[attr-defined]


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """Which backend answers what a stop holds: "live", or "core" (a core of each stop)."""
    return str(getattr(request, "param", "live"))


@pytest.fixture
def debugger(no_leftover_processes: None, backend: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh PtraceDebugger (over the core backend: see tests/support/core_backend.py),
    closed after the test (before the leak check runs)."""
    engine = importlib.import_module(ENGINE_MODULE)
    dbg = engine.PtraceDebugger()
    if backend == "core":
        dbg = CoreBackedDebugger(dbg, engine.PtraceDebugger, request.getfixturevalue("tmp_path"))
    try:
        yield dbg
    finally:
        dbg.close()
    if backend == "core" and not dbg.cores_written and request.node.stash.get(CALL_PASSED, False):
        pytest.fail("over the core backend this test read nothing at a stop: mark it live_only "
                    "with the reason", pytrace=False)  # fmt: skip


@pytest.fixture
def events(debugger: Any) -> Any:
    """The EventLog of `debugger`."""
    from tests.support.events import EventLog

    return EventLog(debugger)
