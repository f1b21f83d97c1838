"""The stacks a front end asked for at the last stop, made in one handoff at this one once
it asks for them again.

A client listing every thread's stack (DAP's stackTrace of each thread, MI's
-stack-list-frames --thread N of each) sends one request per thread, and each missed the
stop cache and waited on the tracer thread: 1,000 handoffs per stop. At a stop where the
client has asked for a second thread's stack, the others it asked for at the last stop
are made with it in the same handoff (from kept unwindings where the threads stayed
parked): its next requests are answered from the stop cache on its own thread. The first
request of a stop (most often the stopped thread's alone) makes no more than before.

A stop over a stub is told once the stacks the last stop that asked for any asked for of
the stopped thread (MI's *stopped frame with its arguments) are made (`last_asked`), on
the engine's thread with the stop: the front end then reads them from the stop cache on
its own thread, no handoff to the engine and back (two wake-ups per step). A live
process's stops as well; and the variables the last stop asked for of the stopped thread
with them (DAP's locals and arguments of the top frame, at each stop).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from aliceserver.debuggers.model import DynamicTypes, VariableScope
from aliceserver.errors import AliceError

StackKey = tuple[int, int, int | None]  # (thread, start, count) as stack_trace asks
# (thread, level, scope, aggregate_values, dynamic, entry_values) as frame_variables asks
VariablesKey = tuple[int, int, VariableScope, bool, DynamicTypes, bool]


class AskedStacks:
    def __init__(self) -> None:
        self._now: set[StackKey] = set()
        self._threads: set[int] = set()  # those asked for at this stop
        self._before: set[StackKey] = set()  # the last stop's, until made ahead
        self._arguments: set[StackKey] = set()  # of _now, those asked with frame 0's arguments
        self._last: dict[StackKey, bool] = {}  # the last stop that asked: key -> arguments
        self._making = False
        self._variables_now: set[VariablesKey] = set()
        self._variables_last: set[VariablesKey] = set()

    def next_stop(self) -> None:
        if self._now:  # a stop no one asked at (a step plan's) keeps the one before
            self._last = {key: key in self._arguments for key in self._now}
        if self._variables_now:
            self._variables_last, self._variables_now = self._variables_now, set()
        self._before, self._now, self._threads, self._arguments = self._now, set(), set(), set()

    def asked(self, key: StackKey, arguments: bool = False) -> None:
        if self._making:
            return  # made before anyone asks: not an ask
        self._now.add(key)
        self._threads.add(key[0])
        if arguments:
            self._arguments.add(key)

    def asked_variables(self, key: VariablesKey) -> None:
        if not self._making:
            self._variables_now.add(key)

    def last_asked_variables(self, thread_id: int) -> list[VariablesKey]:
        """The variables of `thread_id` the last stop that asked for any asked for."""
        return [key for key in self._variables_last if key[0] == thread_id]

    @contextmanager
    def making(self) -> Iterator[None]:
        """What stack_trace makes meanwhile (the stacks `last_asked` gave) counts as asked
        by no one: only a front end's asks are made ahead at the next stop."""
        self._making = True
        try:
            yield
        finally:
            self._making = False

    def last_asked(self, thread_id: int) -> list[tuple[StackKey, bool]]:
        """The stacks of `thread_id` the last stop that asked for any asked for, each with
        whether frame 0's arguments were asked with it."""
        return [(key, arguments) for key, arguments in self._last.items() if key[0] == thread_id]

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
