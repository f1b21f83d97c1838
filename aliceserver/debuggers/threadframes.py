"""An optional capability of a backend: many threads' top frames and arguments made in
one go, for a front end about to list them all (MI's -thread-info of 1,000 threads)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class ThreadFramesAhead(Protocol):
    def prepare_thread_frames(self, thread_ids: Sequence[int]) -> None:
        """Make, at this stop, what stack_trace(tid, 0, 1) and frame_variables(tid, 0,
        ARGUMENTS, aggregate_values=False) answer for each thread, so that those calls
        answer without waiting on the engine's thread (one handoff in all, where a list
        of 1,000 threads took 2,000). Errors are left to those calls."""
        ...
