"""The stacks a client asked for at the last stop are made in one go at this one, once it
asks for a second thread's: the first request of a stop makes no more than its own."""

from __future__ import annotations

from aliceserver.debuggers.source.askedstacks import AskedStacks, StackKey
from aliceserver.errors import TargetError


def _ask(asked: AskedStacks, key: StackKey, known: dict[StackKey, str], made: list[StackKey]) -> None:
    """As Frames.stack_trace: recorded, then made (with the others ahead) unless known."""
    asked.asked(key)
    if key in known:
        return

    def make(other: StackKey) -> str:
        if other[0] == 4:
            raise TargetError("Thread 4 has exited")
        made.append(other)
        known[other] = "frames"
        return "frames"

    make(key)
    asked.make_ahead(key, known.get, make)


def test_a_client_listing_every_threads_stack_gets_them_in_one_go_at_the_next_stop() -> None:
    asked, made = AskedStacks(), list[StackKey]()
    known: dict[StackKey, str] = {}
    for thread in (1, 2, 3, 4, 5):
        asked.asked((thread, 0, 20))
    asked.next_stop()
    _ask(asked, (1, 0, 20), known, made)
    assert made == [(1, 0, 20)]  # the stopped thread's alone: nothing more made for it
    _ask(asked, (2, 0, 20), known, made)
    assert sorted(made) == [(1, 0, 20), (2, 0, 20), (3, 0, 20), (5, 0, 20)]  # 4 is gone: left
    _ask(asked, (3, 0, 20), known, made)
    _ask(asked, (6, 0, 20), known, made)  # new at this stop: its own only
    assert len(made) == 5


def test_nothing_is_made_ahead_for_a_thread_the_last_stop_did_not_ask_for() -> None:
    asked, made = AskedStacks(), list[StackKey]()
    known: dict[StackKey, str] = {}
    asked.asked((1, 0, 20))
    asked.asked((2, 0, 20))
    asked.next_stop()
    _ask(asked, (1, 0, 1), known, made)
    _ask(asked, (3, 0, 20), known, made)
    assert made == [(1, 0, 1), (3, 0, 20)]
    asked.next_stop()
    asked.next_stop()  # a stop where none was asked: the one before is forgotten
    known.clear()  # as the stop cache at each stop
    _ask(asked, (1, 0, 1), known, made)
    _ask(asked, (3, 0, 20), known, made)
    assert len(made) == 4


def test_a_stop_is_told_with_the_stacks_the_last_asking_stop_asked_for_of_its_thread() -> None:
    asked = AskedStacks()
    asked.asked((1, 0, 1), arguments=True)  # MI's *stopped frame
    asked.asked((2, 0, 20))
    asked.next_stop()
    asked.next_stop()  # a step plan's inner stop, where no one asked: the one before holds
    assert asked.last_asked(1) == [((1, 0, 1), True)]
    assert asked.last_asked(2) == [((2, 0, 20), False)]
    with asked.making():
        asked.asked((1, 0, 1), arguments=True)  # made before it is told: asked by no one
    asked.asked((3, 0, 5))
    asked.next_stop()
    assert asked.last_asked(1) == [] and asked.last_asked(3) == [((3, 0, 5), False)]
