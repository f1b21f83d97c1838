"""The session core's run state: its phases, its stop count, and waiting for a stop,
alone and fed by a real engine's events through its event source."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from aliceserver.debuggers.events import Continued, Exited, Output, Stopped, StopReason
from aliceserver.debuggers.model import LaunchConfig
from aliceserver.session.runstate import RunPhase, RunState, WaitResult
from tests.support.build import Builder

STOP = Stopped(StopReason.BREAKPOINT, thread_id=7, breakpoint_ids=(1,))


def test_phases_follow_the_stops_and_the_exit() -> None:
    state = RunState()
    assert (state.phase, state.generation, state.last_stop) == (RunPhase.NOT_STARTED, 0, None)
    assert not state.apply(Output("stdout", "x")) and not state.apply(Continued(7))
    assert state.generation == 0 and state.phase is RunPhase.NOT_STARTED
    before = state.begin_run()
    assert state.phase is RunPhase.RUNNING and before == 0
    seen: list[RunPhase] = []
    assert state.apply(STOP, lambda: seen.append(state.phase))
    assert seen == [RunPhase.STOPPED]  # `also` runs once the stop is taken, under the lock
    assert (state.phase, state.last_stop, state.generation) == (RunPhase.STOPPED, STOP, 1)
    state.begin_run()
    assert state.apply(Exited(pid=7, code=3))
    assert state.phase is RunPhase.EXITED and state.exited == Exited(pid=7, code=3)
    assert state.generation == 2


def test_a_refused_resume_goes_back_unless_an_event_came() -> None:
    state = RunState(RunPhase.STOPPED)
    generation = state.begin_run()
    state.run_failed(RunPhase.STOPPED, generation)
    assert state.phase is RunPhase.STOPPED
    generation = state.begin_run()
    state.apply(Exited(pid=7, code=0))  # the program ended meanwhile: that stays
    state.run_failed(RunPhase.STOPPED, generation)
    assert state.phase is RunPhase.EXITED


def test_wait_times_out_while_running_and_returns_at_once_otherwise() -> None:
    state = RunState()
    assert state.wait(0, 5) is WaitResult.STOPPED  # held at its start: nothing to wait for
    generation = state.begin_run()
    started = time.monotonic()
    assert state.wait(generation, 0.05) is WaitResult.RUNNING
    assert time.monotonic() - started >= 0.05
    state.apply(STOP)  # before the wait starts: not missed, the count moved past it
    assert state.wait(generation, 5) is WaitResult.STOPPED


def test_every_waiter_wakes_at_the_stop() -> None:
    state = RunState()
    generation = state.begin_run()
    results: list[WaitResult] = []
    waiters = [threading.Thread(target=lambda: results.append(state.wait(generation, 10))) for _ in range(3)]
    for waiter in waiters:
        waiter.start()
    time.sleep(0.05)
    state.apply(Exited(pid=7, code=0))
    for waiter in waiters:
        waiter.join(5)
    assert results == [WaitResult.EXITED] * 3


def test_fed_by_a_real_engine_through_its_event_source(builder: Builder, debugger: Any) -> None:
    program: Path = builder.build("console_run")
    subscription = debugger.subscribe()
    state = RunState()

    def pump() -> None:
        for event in subscription:  # until the subscription is closed
            state.apply(event)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        debugger.launch(LaunchConfig(str(program)))
        inner = debugger.insert_location_breakpoint("inner")
        generation = state.begin_run()
        debugger.resume()
        assert state.wait(generation, 30) is WaitResult.STOPPED
        assert state.phase is RunPhase.STOPPED and state.last_stop is not None
        assert set(state.last_stop.breakpoint_ids) & set(inner.breakpoint_ids)
        debugger.remove_location_breakpoint(inner.id)
        generation = state.begin_run()
        debugger.resume()
        assert state.wait(generation, 30) is WaitResult.EXITED
        assert state.exited is not None and state.exited.code == 0
        assert state.generation == 2
    finally:
        subscription.close()
        reader.join(5)


def test_a_gone_process_keeps_its_exit_else_is_not_started_again() -> None:
    state = RunState()
    generation = state.begin_run()
    state.forget()  # detached while running: a waiter wakes
    assert state.wait(generation, 5) is WaitResult.STOPPED
    assert state.phase is RunPhase.NOT_STARTED and state.generation == generation + 1
    state.begin_run()
    state.apply(Exited(pid=7, code=1))
    state.forget()
    assert state.phase is RunPhase.EXITED and state.exited == Exited(pid=7, code=1)
