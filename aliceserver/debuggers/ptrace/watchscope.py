"""Watchpoints on a frame's locals die with that frame, as in gdb.

gdb binds a watch whose expression reads a local or an argument to that frame (its frame
id) and to the thread running it, and puts a momentary breakpoint at the frame's return
address. When the thread comes back there with the frame popped (rsp at or above the
frame's CFA: a deeper level of a recursion returning to the same address does not count),
or when the watch fires and the frame is no longer on the stack (left by longjmp or by an
exception), the watch is deleted and the stop says so: "Watchpoint N deleted because the
program has left the block in which its expression is valid." A watch on globals only, or
on an address (`watch -location`), has no scope and lives on. Which names an expression
reads is the source level's (source/watchnames.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.debuggers.ptrace.watch import Watch

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior


def frame_left(inferior: Inferior, watch: Watch, tid: int) -> bool:
    """At the scope guard: is this the watch's thread, back with the frame popped?"""
    scope = watch.scope
    return scope is not None and tid == watch.thread and inferior.sp(tid) >= scope.frame_cfa


def frame_alive(inferior: Inferior, watch: Watch, tid: int) -> bool:
    """When the watch fires: is its frame still on the thread's stack? It is while the
    stack pointer is below its CFA and the slot under the CFA still holds the address the
    frame returns to; after a longjmp out of it, a frame called in its place from another
    call site holds another one. (gdb compares the function too: a frame called from the
    very same call site passes for the same frame here, as its frame id does in gdb.)"""
    scope = watch.scope
    if scope is None:
        return True
    if inferior.sp(tid) >= scope.frame_cfa:
        return False
    if watch.return_address is None:
        return True
    try:
        slot = inferior.memory.read(scope.frame_cfa - 8, 8)
    except OSError:
        return False
    return int.from_bytes(slot, "little") == watch.return_address


def retire(inferior: Inferior, watch: Watch, *, drop_guard: bool) -> None:
    """Delete a watch whose frame is gone: its slot, its thread's debug registers, and
    (unless the guard is finishing as a temporary trap) its scope guard."""
    watch.hit_count += 1  # gdb counts the scope check as a hit of the watchpoint
    if any(w is watch for w in inferior.watches.all()):
        inferior.watches.remove(watch.id)
    owner = inferior.threads.get(watch.thread) if watch.thread is not None else None
    if owner is not None and not owner.gone:
        inferior.watches.apply(inferior.libc, owner.tid)
    guard = watch.guard_id
    if drop_guard and guard is not None and guard in inferior.traps.by_id:
        trap = inferior.traps.remove(guard)
        if not trap.wanted:
            inferior.remove_trap(trap)
        if not trap.logical:
            inferior.traps.drop_trap(trap.address)
