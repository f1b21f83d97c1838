"""Which thread's debug registers hold a watch: every thread's, but a watch scoped to a
frame only its own thread's (a local is that thread's), and a followed fork child's."""

from __future__ import annotations

from aliceserver.debuggers.model import WatchKind, WatchScope
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.watch import Watch, WatchSlots

DR0, DR1, DR7 = (binding.DEBUGREG_OFFSET + index * 8 for index in (0, 1, 7))


class PokeLog:
    """Stands in for Libc: remembers what each thread's debug registers were given."""

    def __init__(self) -> None:
        self.registers: dict[tuple[int, int], int] = {}

    def poke_user(self, tid: int, offset: int, value: int) -> None:
        self.registers[(tid, offset)] = value


def slots_with_a_global_and_a_local(owner: int) -> WatchSlots:
    slots = WatchSlots()
    slots.add(Watch(1, 0x4000, 4, WatchKind.WRITE, b"\0" * 4))
    local = Watch(2, 0x7FF0, 4, WatchKind.WRITE, b"\0" * 4, scope=WatchScope(owner, 0x8000), thread=owner)
    slots.add(local)
    return slots


def test_a_scoped_watch_is_only_in_its_threads_registers() -> None:
    slots, log = slots_with_a_global_and_a_local(owner=10), PokeLog()
    for tid in (10, 11):
        slots.apply(log, tid)  # type: ignore[arg-type]
    assert (log.registers[(10, DR0)], log.registers[(10, DR1)]) == (0x4000, 0x7FF0)
    assert (log.registers[(11, DR0)], log.registers[(11, DR1)]) == (0x4000, 0)
    assert log.registers[(10, DR7)] & 0b1111 == 0b0101  # slots 0 and 1 enabled
    assert log.registers[(11, DR7)] & 0b1111 == 0b0001  # slot 0 only


def test_a_followed_fork_child_takes_the_forking_threads_watches() -> None:
    slots, log = slots_with_a_global_and_a_local(owner=10), PokeLog()
    slots.move_thread(10, 20)
    slots.apply(log, 20)  # type: ignore[arg-type]
    assert log.registers[(20, DR1)] == 0x7FF0


def test_a_wide_watch_takes_a_register_per_piece_and_is_told_once() -> None:
    slots, log = WatchSlots(), PokeLog()
    slots.add(Watch(1, 0x4000, 16, WatchKind.WRITE, b"\0" * 16))
    slots.apply(log, 10)  # type: ignore[arg-type]
    assert (log.registers[(10, DR0)], log.registers[(10, DR1)]) == (0x4000, 0x4008)
    assert [w.id for w in slots.all()] == [1]
    slots.remove(1)
    assert slots.all() == [] and not slots.active()
