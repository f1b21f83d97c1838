"""The stacks a front end asked for at the last stop, made in one handoff at this one once
it asks for them again.

A client listing every thread's stack (DAP's stackTrace of each thread, MI's
-stack-list-frames --thread N of each) sends one request per thread, and each missed the
stop cache and waited on the tracer thread: 1,000 handoffs per stop. At a stop where the
client has asked for a second thread's stack, the others it asked for at the last stop
are made with it in the same handoff (from kept unwindings where the threads stayed
parked): its next requests are answered from the stop cache on its own thread. The first
request of a stop (most often the stopped thread's alone) makes no more than before.
"""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.errors import AliceError

StackKey = tuple[int, int, int | None]  # (thread, start, count) as stack_trace asks


class AskedStacks:
    def __init__(self) -> None:
        self._now: set[StackKey] = set()
        self._threads: set[int] = set()  # those asked for at this stop
        self._before: set[StackKey] = set()  # the last stop's, until made ahead

    def next_stop(self) -> None:
        self._before, self._now, self._threads = self._now, set(), set()

    def asked(self, key: StackKey) -> None:
        self._now.add(key)
        self._threads.add(key[0])

    def make_ahead(
        self, key: StackKey, known: Callable[[StackKey], object | None], make: Callable[[StackKey], object]
    ) -> None:
        """With `key`'s stack (on the tracer thread), the last stop's others not `known` yet,
        once a second thread's is asked for at this stop and `key` was at the last one too."""
        if len(self._threads) < 2 or key not in self._before:
            return
        before, self._before = self._before, set()
        for other in before:
            if other != key and known(other) is None:
                try:
                    make(other)
                except AliceError:
                    pass  # told when it is asked for
