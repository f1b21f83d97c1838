"""Breakpoint and watchpoint commands (-break-*), shared with the console's break & co."""

from __future__ import annotations

import re

from aliceserver.adapters.mi.breakpoints import BREAKPOINT, TRACEPOINT, MiBreakpoint
from aliceserver.adapters.mi.locations import Location
from aliceserver.adapters.mi.parser import Options, getopt
from aliceserver.adapters.mi.registry import Context, MiError, MiRegistry, Reply
from aliceserver.errors import AliceError


def created(ctx: Context, bp: MiBreakpoint, *, to_self: bool) -> None:
    """=breakpoint-created for the other channels (and this one for a console command)."""
    line_pairs = [("bkpt", ctx.session.breakpoints.tuple(bp))]
    from aliceserver.adapters.mi.output import record

    text = record("=", "breakpoint-created", line_pairs)
    ctx.session.broadcast(text, except_ui=None if to_self else ctx.ui)


def note_others(ctx: Context, bp: MiBreakpoint) -> None:
    """gdb's describe_other_breakpoints, for each location of a breakpoint a person just
    set: every other user breakpoint with a location at that pc, its thread and state."""
    for place in bp.places:
        others = [other for other in ctx.session.breakpoints.sorted()
                  if other is not bp and not other.is_watch and other.catch is None
                  and any(p.address == place.address for p in other.places)]  # fmt: skip
        if not others:
            continue
        words = []
        for i, other in enumerate(others):
            word = str(other.number)
            if other.thread is None and bp.thread is not None:
                word += " (all threads)"
            elif other.thread is not None:
                word += f" (thread {other.thread})"
            word += " (disabled)" if not other.enabled else ""
            left = len(others) - 1 - i
            words.append(word + ("," if left > 1 else " and" if left == 1 else ""))
        noun = "breakpoint" if len(others) == 1 else "breakpoints"
        ctx.console(f"Note: {noun} {' '.join(words)} also set at pc {place.address:#x}.\n")


def parse_int(text: str, what: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise MiError(f"Invalid {what}: {text}") from None


_int = parse_int


def explicit_location(options: Options, command: str = "break") -> str:
    """gdb's explicit location from --source & co ("" without them)."""
    explicit = {name: options.get(name) for name in ("source", "function", "label", "line") if options.has(name)}
    if not explicit:
        return ""
    if set(explicit) == {"source"}:
        raise MiError(f"-{command}-insert: --source option requires --function, --label, or --line")
    return Location(explicit.get("source"), explicit.get("function"), explicit.get("label"),
                    explicit.get("line"), qualified=options.has("qualified"), explicit=True).text()


def _location(options: Options) -> str:
    """-break-insert's location: one linespec, or gdb's explicit one from --source & co."""
    explicit = explicit_location(options)
    if explicit:
        if options.rest:
            raise MiError("-break-insert: Garbage following explicit location")
        return explicit
    if len(options.rest) > 1:
        raise MiError("-break-insert: Garbage following <location>")
    location = options.rest[0] if options.rest else ""
    return f"-qualified {location}" if location and options.has("qualified") else location


def _break_insert(ctx: Context, args: list[str]) -> Reply:
    options = getopt("break-insert", args, flags="thfdar", valued="cip",
                     long=("qualified", "source=", "line=", "function=", "label=", "force-condition"))
    location = _location(options)
    if not location:
        raise MiError("-break-insert: Missing <location>")
    session = ctx.session
    thread = None
    if options.has("p"):
        thread = _int(options.get("p") or "", "thread id")
        if session.inferior.tid_of(thread) is None:
            raise MiError(f"Unknown thread {thread}.")
    pending_ok = options.has("f")  # gdb's mi_cmd_break_insert_1: `set breakpoint pending` is the console's
    bp, problem = session.breakpoints.create(
        location, temporary=options.has("t"), condition=options.get("c"),
        ignore=_int(options.get("i") or "0", "ignore count"), enabled=not options.has("d"),
        pending_ok=pending_ok, thread=thread, force_condition=options.has("force-condition"), warn=ctx.log,
        kind=TRACEPOINT if options.has("a") else BREAKPOINT, hardware=options.has("h"),
    )
    if problem and options.has("f"):
        ctx.log(problem + "\n")
    if bp.gdb_type == TRACEPOINT:
        from aliceserver.adapters.mi import tracepoints  # it imports this module

        tracepoints.created(ctx, bp)
    created(ctx, bp, to_self=False)
    return [("bkpt", session.breakpoints.tuple(bp))]


def _numbers(ctx: Context, args: list[str]) -> list[MiBreakpoint]:
    found = []
    for arg in args:
        try:
            found.append(ctx.session.breakpoints.get(arg))
        except MiError as error:
            if "No breakpoint number" not in str(error):
                raise
            ctx.console(str(error) + "\n")
    return found


def delete(ctx: Context, args: list[str]) -> None:
    table = ctx.session.breakpoints
    targets = _numbers(ctx, args) if args else table.sorted()
    for bp in targets:
        table.delete(bp)
        ctx.session.notify_except(ctx, "breakpoint-deleted", [("id", str(bp.number))])


def enable_command(ctx: Context, words: list[str]) -> None:
    """gdb's `enable [once|count N|delete] [NUMBERS]` (-break-enable is the same command)."""
    if words and words[0] in ("once", "count", "delete"):
        form, words = words[0], words[1:]
        count = 1
        if form == "count":
            if not words:
                raise MiError("Argument required (hit count).")
            count, words = parse_int(words[0], "count"), words[1:]
        if not words:  # gdb's map_breakpoint_numbers
            raise MiError("Argument required (one or more breakpoint numbers).")
        targets = _numbers(ctx, words)
        for bp in targets:
            if form == "delete":
                bp.temporary, bp.disable_after, bp.enable_count = True, False, 0
            else:
                bp.disable_after, bp.enable_count = True, count
        enable(ctx, [str(bp.number) for bp in targets], True)
        return
    entries = ctx.session.breakpoints.entries
    for word in words or [str(number) for number in entries]:
        named = entries.get(int(word)) if word.isdigit() else None
        if named is not None:
            named.enable_count = 0  # gdb's enable_breakpoint: the disposition stays
    enable(ctx, words, True)


def _location_args(ctx: Context, args: list[str], enabled: bool) -> list[str]:
    """Enable or disable the locations `N.M` and `N.M-K` of `args` (gdb's; `N.1` of a
    breakpoint with one location is the breakpoint); the other arguments."""
    table = ctx.session.breakpoints
    rest = []
    for arg in args:
        match = re.fullmatch(r"(\d+)\.(\d+)(?:-(\d+))?", arg)
        if match is None:
            rest.append(arg)
            continue
        number, first = int(match.group(1)), int(match.group(2))
        last = int(match.group(3) or first)
        bp = table.entries.get(number)
        if first == last == 1 and (bp is None or len(bp.places) < 2):
            rest.append(str(number))
            continue
        if bp is None:
            raise MiError(f"Bad breakpoint number '{number}'")
        if first == 0 or last < first:
            raise MiError(f"Bad breakpoint location number '{first}'")
        for index in range(first, last + 1):
            table.set_location_enabled(bp, index, enabled)
            ctx.session.notify_except(ctx, "breakpoint-modified", [("bkpt", table.tuple(bp))])
    return rest


def _bad_number(arg: str) -> str | None:
    """gdb's extract_bp_num errors for an argument of enable/disable (None: well formed)."""
    if re.fullmatch(r"\d+(?:-\d+)?|\d+\.\d+(?:-\d+)?", arg):
        return None
    head, dot, tail = arg.partition(".")
    if head.startswith("-") and head[1:].isdigit():
        return f"Negative breakpoint number '{head}'"
    if not head.isdigit():  # get_number_trailer: a word from a digit to the dot, else all of it
        return f"Bad breakpoint number '{head if head[:1].isdigit() else arg}'"
    if tail.startswith("-") and tail[1:].isdigit():
        return f"Negative breakpoint location number '{tail}'"
    return f"Bad breakpoint location number '{tail}'"


def enable(ctx: Context, args: list[str], enabled: bool) -> None:
    bad = next(((i, problem) for i, arg in enumerate(args) if (problem := _bad_number(arg))), None)
    if bad is not None:  # gdb goes through them in order: those before are done
        if bad[0]:
            enable(ctx, args[: bad[0]], enabled)
        raise MiError(bad[1])
    table = ctx.session.breakpoints
    if args:
        args = _location_args(ctx, args, enabled)
        if not args:
            return
    targets = _numbers(ctx, args) if args else table.sorted()
    for bp in targets:
        table.set_enabled(bp, enabled)
        ctx.session.notify_except(ctx, "breakpoint-modified", [("bkpt", table.tuple(bp))])


def condition(ctx: Context, number: str, expression: str, *, force: bool = False) -> None:
    # (imported here: it imports this module's users)
    from aliceserver.adapters.mi.break_keywords import condition_end

    table = ctx.session.breakpoints
    bp = table.get(number)
    end = condition_end(expression, 0)  # gdb's lexer ends it at `if` or `thread N`
    if expression.strip() and end < len(expression.rstrip()):
        where = ctx.session.console_selection()
        try:  # what gdb parsed first: its unknown symbols
            ctx.session.debugger.evaluate(expression[:end], where.thread_id, where.level, type_only=True)
        except AliceError as error:
            if str(error).startswith("No symbol"):
                raise MiError(str(error)) from None
        raise MiError("Junk at end of expression")
    table.set_condition(bp, expression, force=force, say=ctx.console, warn=ctx.log)
    if bp.is_watch:
        # (imported here: it imports this module's users)
        from aliceserver.adapters.mi.watch_gate import condition_changed

        condition_changed(ctx.session, bp)
    if ctx.cli and ctx.from_tty and not expression.strip():
        ctx.console(f"Breakpoint {bp.number} now unconditional.\n")
    ctx.session.notify_except(ctx, "breakpoint-modified", [("bkpt", table.tuple(bp))])


def after(ctx: Context, number: str, count: str) -> None:
    table = ctx.session.breakpoints
    bp = table.get(number)
    bp.ignore = max(0, _int(count, "count"))
    if ctx.cli:
        if bp.ignore == 0:
            ctx.console(f"Will stop next time breakpoint {bp.number} is reached.\n")
        elif bp.ignore == 1:
            ctx.console(f"Will ignore next crossing of breakpoint {bp.number}.\n")
        else:
            ctx.console(f"Will ignore next {bp.ignore} crossings of breakpoint {bp.number}.\n")
    ctx.session.notify_except(ctx, "breakpoint-modified", [("bkpt", table.tuple(bp))])


def watch(ctx: Context, expression: str, mode: str, *, location: bool = False) -> MiBreakpoint:
    # (imported here: it imports this module's users)
    from aliceserver.adapters.mi.watch_gate import remember_frame

    session = ctx.session
    bp = session.breakpoints.create_watch(expression, mode, location=location)
    remember_frame(session, bp)  # a watch on locals is read in its frame (gdb's watchpoint_frame)
    return bp


def _break_delete(ctx: Context, args: list[str]) -> Reply:
    delete(ctx, args)
    return None


def _break_enable(ctx: Context, args: list[str]) -> Reply:
    enable_command(ctx, args)
    return None


def _break_disable(ctx: Context, args: list[str]) -> Reply:
    enable(ctx, args, False)
    return None


def _break_condition(ctx: Context, args: list[str]) -> Reply:
    options = getopt("break-condition", args, long=("force",))
    if not options.rest:
        raise MiError("-break-condition: Missing the <number> argument")
    condition(ctx, options.rest[0], " ".join(options.rest[1:]), force=options.has("force"))
    return None


def _break_after(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 2:
        raise MiError("-break-after: Usage: -break-after NUMBER COUNT")
    after(ctx, args[0], args[1])
    return None


def _break_list(ctx: Context, args: list[str]) -> Reply:
    return [("BreakpointTable", ctx.session.breakpoints.table())]


def _break_info(ctx: Context, args: list[str]) -> Reply:
    """gdb 13's -break-info is `info breakpoints` [NUMBERS/RANGES]: none lists them all, and
    a number with no breakpoint is only left out."""
    table = ctx.session.breakpoints
    if not args:
        return [("BreakpointTable", table.table())]
    wanted: set[int] = set()
    for arg in args:
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", arg)
        if match is None:
            raise MiError("Arguments must be numbers or '$' variables.")
        wanted.update(range(int(match.group(1)), int(match.group(2) or match.group(1)) + 1))
    return [("BreakpointTable", table.table([bp for bp in table.sorted() if bp.number in wanted]))]


def _break_watch(ctx: Context, args: list[str]) -> Reply:
    options = getopt("break-watch", args, flags="ar")
    if not options.rest:
        raise MiError("-break-watch: Usage: -break-watch [-a|-r] EXPRESSION")
    mode = "a" if options.has("a") else "r" if options.has("r") else ""
    bp = watch(ctx, " ".join(options.rest), mode)
    key = {"": "wpt", "r": "hw-rwpt", "a": "hw-awpt"}[mode]
    return [(key, {"number": str(bp.number), "exp": bp.location})]


def _fix_multi_location_output(ctx: Context, args: list[str]) -> Reply:
    """From here on MI 2 writes a breakpoint's locations in a list, as MI 3 does."""
    ctx.session.config.multi_location_fixed = True
    return None


def register(registry: MiRegistry) -> None:
    for name, handler in {
        "break-insert": _break_insert, "break-delete": _break_delete, "break-enable": _break_enable,
        "break-disable": _break_disable, "break-condition": _break_condition,
        "break-after": _break_after, "break-list": _break_list, "break-info": _break_info,
        "break-watch": _break_watch,
        "fix-multi-location-breakpoint-output": _fix_multi_location_output,
    }.items():  # fmt: skip
        registry.add(name, handler)
