"""Cuts off a printer that runs past its time budget in pure Python (`while True: pass`
never calls the gdb API, where the budget is otherwise checked).

A watchdog thread raises BudgetExceeded in the printing thread (CPython's
PyThreadState_SetAsyncExc) while printer code runs there past the deadline; the caller's
`except Exception` around that printer call shows it as that value's error. Measured
against a `sys.settrace` hook (every line of printer code traced: about 3x slower
printing), arming costs two lock round trips per printer call.

The exception is only ever raised inside `run`: the watchdog fires under the lock only
while armed, and disarming takes back an exception not yet delivered.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from aliceserver.debuggers.printers.context import BudgetExceeded

T = TypeVar("T")

_REFIRE = 0.05  # seconds between two cut-offs: printer code past the deadline that swallowed one
_IDLE_EXIT = 30.0  # the thread ends when no printer ran this long; started again at need

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = [ctypes.c_ulong, ctypes.py_object]
_set_async_exc.restype = ctypes.c_int


def _raise_in(thread: int, exc: type[BaseException] | None) -> None:
    _set_async_exc(ctypes.c_ulong(thread), ctypes.py_object(exc) if exc is not None else ctypes.py_object())


class Watchdog:
    """One per printer host: cuts off printer code that outlives `deadline`."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._thread: threading.Thread | None = None
        self._target = 0  # the printing thread while armed, else 0
        self._deadline = float("inf")
        self._fired = False

    def run(self, deadline: float, fn: Callable[[], T]) -> T:
        """`fn()` (printer code), cut off by BudgetExceeded once `deadline` has passed."""
        if self._target == threading.get_ident() or deadline == float("inf"):
            return fn()  # a printer formatting a value through printers: already watched
        if time.monotonic() > deadline:
            raise BudgetExceeded("pretty printer took too long")
        self._arm(deadline)
        delivered = False
        try:
            return fn()
        finally:
            while True:
                try:
                    self._disarm()
                    break
                except BudgetExceeded:  # delivered on the way out: still this printer's
                    delivered = True
            if delivered:
                raise BudgetExceeded("pretty printer took too long")

    def _arm(self, deadline: float) -> None:
        with self._lock:
            self._target = threading.get_ident()
            self._deadline = deadline
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._watch, name="printer-watchdog", daemon=True)
                self._thread.start()
            self._lock.notify()

    def _disarm(self) -> None:
        with self._lock:
            if self._fired:  # not delivered yet: taken back, it would land outside the printer
                _raise_in(self._target, None)
                self._fired = False
            self._target = 0

    def _watch(self) -> None:
        idle_since = time.monotonic()
        with self._lock:
            while True:
                now = time.monotonic()
                if not self._target:
                    if now - idle_since > _IDLE_EXIT:
                        self._thread = None
                        return
                    self._lock.wait(_IDLE_EXIT)
                    continue
                idle_since = now
                if now < self._deadline:
                    self._lock.wait(self._deadline - now)
                    continue
                _raise_in(self._target, BudgetExceeded)
                self._fired = True
                self._lock.wait(_REFIRE)
