"""The engine's event source: subscriptions, their order, their end."""

from __future__ import annotations

import queue
import threading
import time

import pytest

from aliceserver.debuggers.events import Continued, Event, Output
from aliceserver.debuggers.eventsource import EventSource, SubscriptionClosed


def output(number: int) -> Output:
    return Output("stdout", str(number))


def test_each_subscription_gets_every_later_event_in_order() -> None:
    source = EventSource()
    source.put(output(0))  # before anyone listens: for nobody
    first = source.subscribe()
    source.put(output(1))
    second = source.subscribe()
    for number in (2, 3):
        source.put(output(number))
    assert [first.get_nowait() for _ in range(3)] == [output(1), output(2), output(3)]
    assert [second.get_nowait() for _ in range(2)] == [output(2), output(3)]
    assert first.empty() and second.empty()
    with pytest.raises(queue.Empty):
        first.get(timeout=0.01)


def test_concurrent_publishers_reach_every_subscriber_in_one_order() -> None:
    source = EventSource()
    subscriptions = [source.subscribe() for _ in range(3)]

    def publish(offset: int) -> None:
        for number in range(offset, offset + 2000):
            source.put(output(number))

    threads = [threading.Thread(target=publish, args=(offset,)) for offset in (0, 10_000)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    orders = [[each.get_nowait() for _ in range(4000)] for each in subscriptions]
    assert orders[0] == orders[1] == orders[2]
    ours = [event for event in orders[0] if int(event.text) < 10_000]  # type: ignore[union-attr]
    assert ours == [output(n) for n in range(2000)]  # each publisher's own order kept


def test_close_wakes_a_waiting_reader_after_the_events_before_it() -> None:
    source = EventSource()
    subscription = source.subscribe()
    source.put(output(1))
    read: list[Event] = []
    reader = threading.Thread(target=lambda: read.extend(subscription))  # iterates until closed
    reader.start()
    time.sleep(0.05)  # the reader is blocked in get by now
    assert reader.is_alive()
    subscription.close()
    source.put(output(2))  # after the close: not delivered
    reader.join(timeout=5)
    assert not reader.is_alive()
    assert read == [output(1)]
    with pytest.raises(SubscriptionClosed):
        subscription.get(timeout=0.01)
    subscription.close()  # twice: harmless
    assert source.backlog() == 0


def test_delivery_into_a_front_end_inbox_beside_its_own_items() -> None:
    source = EventSource()
    inbox: queue.Queue[Event | str] = queue.Queue()
    subscription = source.subscribe(into=inbox)
    inbox.put("a line the front end read")
    source.put(Continued(7))
    assert source.backlog() == 2  # the output pump holds back while this is large
    assert [inbox.get_nowait(), inbox.get_nowait()] == ["a line the front end read", Continued(7)]
    with pytest.raises(TypeError):
        subscription.get_nowait()  # its events are in the inbox, not here
    subscription.close()
    source.put(Continued(8))
    assert inbox.empty()
