"""Stack, variables and thread commands (-stack-*, -thread-*, -list-thread-groups)."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.frames import (
    WrittenFrames,
    display_value,
    evaluation_failure,
    is_aggregate,
    printer_errors,
    with_entry_values,
)
from aliceserver.adapters.mi.inferior_list import as_current, mi_add_inferior, thread_groups
from aliceserver.adapters.mi.output import Results, Value
from aliceserver.adapters.mi.parser import getopt
from aliceserver.adapters.mi.registry import Context, MiError, MiRegistry, Reply
from aliceserver.adapters.mi.remote_commands import remote_held
from aliceserver.adapters.mi.selection_events import after_change, selected
from aliceserver.adapters.mi.thread_names import named
from aliceserver.debuggers.arch.program import program_architecture
from aliceserver.debuggers.model import ThreadInfo, ThreadState, VariableInfo, VariableScope
from aliceserver.debuggers.threadframes import ThreadFramesAhead
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

_PRINT = {"0": 0, "--no-values": 0, "1": 1, "--all-values": 1, "2": 2, "--simple-values": 2}


def print_values(text: str) -> int:
    if text not in _PRINT:
        raise MiError("Unknown value for PRINT_VALUES: must be: 0 or \"--no-values\", 1 or "
                      "\"--all-values\", 2 or \"--simple-values\"")
    return _PRINT[text]


def _split_print(args: list[str], command: str) -> tuple[int, list[str]]:
    rest = [a for a in args if a not in ("--no-frame-filters", "--skip-unavailable")]
    if not rest:
        raise MiError(f"-{command}: Usage: PRINT_VALUES")
    return print_values(rest[0]), rest[1:]


def _listed_value(info: VariableInfo) -> str:
    """A listed variable's value; a print that failed midway (a printer's child unreadable)
    shows what it printed and then the error, as gdb's list_arg_or_locals."""
    if info.partial is not None:
        return f"{info.partial}<error reading variable: {evaluation_failure(info)}>"
    return display_value(info)


def variable_entry(info: VariableInfo, mode: int, *, arg: bool = False, plain: bool = False) -> Value:
    if plain:
        return info.name
    entry: dict[str, Value] = {"name": info.name}
    if arg:
        entry["arg"] = "1"
    if mode == 2:
        entry["type"] = info.type
        if not is_aggregate(info):
            entry["value"] = _listed_value(info)
    elif mode == 1:
        entry["value"] = _listed_value(info)
    if entry.get("value") == "":  # a printer's failed to_string: gdb's field_stream omits it
        del entry["value"]
    return entry


def _listing(key: str, infos: list[VariableInfo], mode: int, arg: bool = False) -> Value:
    if mode == 0:
        return Results([(key, info.name) for info in infos], as_list=True)
    return [variable_entry(info, mode, arg=arg) for info in infos]


def _variables(ctx: Context, scope: VariableScope, mode: int) -> list[VariableInfo]:
    """The frame's variables as gdb's MI lists them: without those that have no location
    (constants, optimized away: mi-cmd-stack.c skips LOC_CONST and LOC_OPTIMIZED_OUT);
    aggregates' values only when `mode` shows them (all values)."""
    tid, level = ctx.session.context_frame(ctx.thread, ctx.frame)
    ctx.session.frames.frame(tid, level)
    if scope is VariableScope.LOCALS:
        ctx.session.locals_listed = True  # made ahead at the next stop (dispatcher.py)
    found = ctx.session.debugger.frame_variables(tid, level, scope, aggregate_values=mode == 1)
    listed = [info for info in found if not info.locationless]
    for info in listed:  # gdb prints them as it reads each value it lists
        shown = mode == 1 or (mode == 2 and not is_aggregate(info))
        for line in printer_errors(info) if shown else []:
            ctx.log(line)
    return listed


def _read_args(infos: list[VariableInfo], mode: int) -> list[VariableInfo]:
    """The arguments whose values gdb reads (so whose entry values it may list): all of
    them with --all-values, the scalars with --simple-values, none with --no-values."""
    return [info if mode == 1 or (mode == 2 and not is_aggregate(info)) else replace(info, entry=None)
            for info in infos]  # fmt: skip


def _stack_info_frame(ctx: Context, args: list[str]) -> Reply:
    session = ctx.session
    tid, level = session.context_frame(ctx.thread, ctx.frame)
    frame = session.frames.frame(tid, level)
    return [("frame", session.frames.tuple(frame, tid))]


def _stack_list_frames(ctx: Context, args: list[str]) -> Reply:
    session = ctx.session
    rest = [a for a in args if a != "--no-frame-filters"]
    tid = session.thread_arg(ctx.thread)
    if rest and len(rest) != 2:
        raise MiError("-stack-list-frames: Usage: [--no-frame-filters] [LOW HIGH]")
    low, high = (int(rest[0]), int(rest[1])) if rest else (0, None)
    frames = session.frames.stack(tid, low, None if high is None else high - low + 1)
    if rest and not frames:
        raise MiError("-stack-list-frames: Not enough frames in stack.")
    arch = program_architecture(session.debugger).name  # the same for each frame
    return [("stack", Results([("frame", session.frames.tuple(f, tid, arch=arch)) for f in frames], as_list=True))]


def _stack_info_depth(ctx: Context, args: list[str]) -> Reply:
    session = ctx.session
    tid = session.thread_arg(ctx.thread)
    # Every frame, as gdb counts them (a 100,000-deep recursion's too), or up to MAX-DEPTH.
    depth = len(session.frames.stack(tid, 0, int(args[0]) if args else sys.maxsize))
    return [("depth", str(depth))]


def _stack_list_locals(ctx: Context, args: list[str]) -> Reply:
    mode, _ = _split_print(args, "stack-list-locals")
    return [("locals", _listing("name", _variables(ctx, VariableScope.LOCALS, mode), mode))]


def _stack_list_arguments(ctx: Context, args: list[str]) -> Reply:
    session = ctx.session
    mode, rest = _split_print(args, "stack-list-arguments")
    tid = session.thread_arg(ctx.thread)
    low, high = (int(rest[0]), int(rest[1])) if len(rest) == 2 else (0, None)
    frames = session.frames.stack(tid, low, None if high is None else high - low + 1)
    items: list[tuple[str, Value]] = []
    for frame in frames:
        infos = [info for info in session.frames.args(tid, frame.level, aggregate_values=mode == 1)
                 if not info.locationless]  # as _variables
        infos = with_entry_values(_read_args(infos, mode), session.settings.get("print entry-values"), mi=True)
        items.append(("frame", {"level": str(frame.level), "args": _listing("name", infos, mode)}))
    return [("stack-args", Results(items, as_list=True))]


def _stack_list_variables(ctx: Context, args: list[str]) -> Reply:
    mode, _ = _split_print(args, "stack-list-variables")
    entry_mode = ctx.session.settings.get("print entry-values")
    arguments = _read_args(_variables(ctx, VariableScope.ARGUMENTS, mode), mode)
    local = _variables(ctx, VariableScope.LOCALS, mode)
    # gdb walks the blocks from the innermost out: locals of nested blocks, then the
    # function's own block in DWARF order, its parameters usually first (gcc -O2 repeats a
    # varargs function's addressed parameter after the locals)
    entries: list[Value] = [variable_entry(info, mode) for info in local if info.block_depth]
    own = [(info.position, 0, info) for info in arguments]
    own += [(info.position, 1, info) for info in local if not info.block_depth]
    for _, is_local, info in sorted(own, key=lambda item: item[:2]):
        if is_local:
            entries.append(variable_entry(info, mode))
        else:  # with its NAME@entry item
            entries += [variable_entry(item, mode, arg=True)
                        for item in with_entry_values([info], entry_mode, mi=True)]
    return [("variables", entries)]


def select_frame(ctx: Context, level: int) -> None:
    session = ctx.session
    tid = session.thread_arg(ctx.thread)
    frames = session.frames.stack(tid, level, 1)
    if not frames:
        raise MiError("No frame at level %d." % level)
    session.inferior.selected_tid = tid
    session.inferior.selected_level = level


def _stack_select_frame(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("-stack-select-frame: Usage: FRAME_SPEC")
    session = ctx.session
    session.require_stopped()
    try:
        level = int(args[0], 0)
    except ValueError:
        raise MiError(f'Invalid frame level: "{args[0]}"') from None
    before = selected(session)
    select_frame(ctx, level)
    after_change(ctx, before, mi=False)  # the consoles hear of a move; MI has the answer
    return None


def target_id(session: MiSession, tid: int, remote: bool | None = None) -> str:
    """gdb's name of a thread: `Thread 0x... (LWP n)` once libthread_db knows the process
    (glibc's libc or libpthread loaded and the thread's pointer set), else `process n` for
    a lone main thread and `LWP n`. `remote`: whether a stub is held, where the caller
    knows (a list of 1,000 threads asks once: a protocol check costs 5 us)."""
    inferior = session.inferior
    held = remote_held(session) is not None if remote is None else remote
    if held and inferior.process is not None:
        return f"Thread {inferior.process.pid}.{tid}"  # gdbserver's multiprocess ids
    pointer = inferior.thread_pointers.get(tid)  # known: no library looked at (1,000 threads)
    if pointer is None and not inferior.running and any(
        os.path.basename(m.path).startswith(("libc.so", "libpthread.so")) for m in inferior.libraries
    ):
        try:
            pointer = session.debugger.read_registers(tid).values.get("fs_base") or None
        except AliceError:
            pointer = None
        if pointer is not None:
            inferior.thread_pointers[tid] = pointer
    if pointer is not None:
        return f"Thread {pointer:#x} (LWP {tid})"
    pid = inferior.process.pid if inferior.process is not None else tid
    return f"process {tid}" if tid == pid and len(inferior.threads) <= 1 else f"LWP {tid}"


def thread_entry(
    ctx: Context,
    info: ThreadInfo,
    number: int,
    arch: str | None = None,
    remote: bool | None = None,
    written: WrittenFrames | None = None,
) -> dict[str, Value]:
    """`written`: a listing's frame tuples, each written once for the threads showing it."""
    session = ctx.session
    tid = info.tid
    info = named(session, info)  # gdb's name: `thread name`'s, else the system's
    entry: dict[str, Value] = {"id": str(number), "target-id": target_id(session, tid, remote)}
    if info.details:  # gdb's order: target-id, details, name
        entry["details"] = info.details
    if info.name:  # a core records none: gdb gives no name then
        entry["name"] = info.name
    if info.state is ThreadState.STOPPED:
        inferior = session.inferior  # gdb shows the current thread at its selected frame
        level = inferior.selected_level if tid == inferior.selected_tid else 0
        try:
            frame = session.frames.frame(tid, level)
            if written is not None and arch is not None:
                entry["frame"] = session.frames.written_tuple(frame, tid, arch, written)
            else:
                entry["frame"] = session.frames.tuple(frame, tid, args=True, arch=arch)
        except AliceError:
            pass
        entry["state"] = "stopped"
    else:
        entry["state"] = "running"
    if info.core is not None:
        entry["core"] = str(info.core)
    return entry


def _thread_info(ctx: Context, args: list[str]) -> Reply:
    session = ctx.session
    inferior = session.inferior
    if inferior.process is None:
        return [("threads", [])]
    wanted = None
    if args:
        try:
            wanted = int(args[0])
        except ValueError:
            raise MiError(f"Invalid thread id: {args[0]}") from None
    threads: list[Value] = []
    listed = session.debugger.threads()
    if wanted is None and len(listed) > 1 and isinstance(session.debugger, ThreadFramesAhead):
        selected = inferior.selected_tid if inferior.selected_level else None  # its frame is another
        stopped = [info.tid for info in listed if info.state is ThreadState.STOPPED and info.tid != selected]
        session.debugger.prepare_thread_frames(stopped)
    arch = program_architecture(session.debugger).name  # the same for each thread's frame
    remote = remote_held(session) is not None
    written: WrittenFrames = {}
    for info in listed:
        number = inferior.threads.get(info.tid) or inferior.add_thread(info.tid)
        if wanted is not None and number != wanted:
            continue
        threads.append(thread_entry(ctx, info, number, arch, remote, written))
    threads.sort(key=lambda t: int(t["id"]) if isinstance(t, dict) and isinstance(t["id"], str) else 0)
    pairs: list[tuple[str, Value]] = [("threads", threads)]
    if wanted is None and inferior.selected_tid in inferior.threads:
        pairs.append(("current-thread-id", str(inferior.threads[inferior.selected_tid])))
    return pairs


def _thread_list_ids(ctx: Context, args: list[str]) -> Reply:
    inferior = ctx.session.inferior
    numbers = sorted(inferior.threads.values())
    pairs: list[tuple[str, Value]] = [("thread-ids", Results([("thread-id", str(n)) for n in numbers]))]
    if inferior.selected_tid in inferior.threads:
        pairs.append(("current-thread-id", str(inferior.threads[inferior.selected_tid])))
    pairs.append(("number-of-threads", str(len(numbers))))
    return pairs


def select_thread(ctx: Context, number: int) -> None:
    session = ctx.session
    tid = session.inferior.tid_of(number)
    if tid is None:
        raise MiError(f"Thread ID {number} not known.")
    session.inferior.selected_tid = tid
    session.inferior.selected_level = 0


def _thread_select(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("-thread-select: USAGE: threadnum.")
    session = ctx.session
    # gdb 13 takes the argument as an expression's value, so `1.2` (a double) is thread 1
    if re.fullmatch(r"\d+(?:\.\d*)?", args[0]) is None:
        raise MiError(f"Invalid thread ID: {args[0]}")
    number = int(float(args[0]))
    before = selected(session)
    select_thread(ctx, number)
    pairs: list[tuple[str, Value]] = [("new-thread-id", str(number))]
    if not session.inferior.running:
        tid = session.require_stopped()
        pairs.append(("frame", session.frames.tuple(session.frames.frame(tid, 0), tid, args=True)))
    after_change(ctx, before, mi=False)
    return pairs


def _list_thread_groups(ctx: Context, args: list[str]) -> Reply:
    session = ctx.session
    options = getopt("list-thread-groups", args, long=("available", "recurse="))
    if options.rest:  # the threads of a group
        named = next((i for i in session.inferiors if f"i{i.number}" == options.rest[0]), session.inferior)
        with as_current(session, named):
            return [("threads", _thread_info(ctx, [])[0][1])]  # type: ignore[index]
    return [("groups", thread_groups(session))]


def register(registry: MiRegistry) -> None:
    for name, handler in {
        "stack-info-frame": _stack_info_frame, "stack-list-frames": _stack_list_frames,
        "stack-info-depth": _stack_info_depth, "stack-list-locals": _stack_list_locals,
        "stack-list-arguments": _stack_list_arguments, "stack-list-variables": _stack_list_variables,
        "stack-select-frame": _stack_select_frame, "thread-info": _thread_info,
        "thread-list-ids": _thread_list_ids, "thread-select": _thread_select,
        "list-thread-groups": _list_thread_groups, "add-inferior": mi_add_inferior,
    }.items():  # fmt: skip
        registry.add(name, handler)
