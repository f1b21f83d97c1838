"""Execution: run, continue, step, finish, until, interrupt, jump, return, kill, attach.

Shared by the MI commands (-exec-*) and the console commands (run, next, ...).
"""

from __future__ import annotations

import shlex
from typing import Callable

from aliceserver.adapters.mi.breakpoints import MiBreakpoint
from aliceserver.adapters.mi.frames import real_frame_inside
from aliceserver.adapters.mi.inferior_list import claim_engine
from aliceserver.adapters.mi.parser import getopt
from aliceserver.adapters.mi.registry import RUNNING, Context, MiError, MiRegistry, Reply
from aliceserver.adapters.mi.remote_commands import remote_held
from aliceserver.adapters.mi.return_values import return_value, returning_function
from aliceserver.adapters.mi.session import StepRepeat
from aliceserver.adapters.mi.sigframes import FINISH_FROM_TRAMPOLINE
from aliceserver.adapters.mi.step_notes import say_no_line
from aliceserver.debuggers import events as ev
from aliceserver.debuggers.model import StackFrame, StepKind, VariableScope
from aliceserver.debuggers.target import LINK_LOST
from aliceserver.errors import AliceError, StartupExit, TargetError


def _resuming(start: Callable[[], None]) -> None:
    """The engine's resume (`start`). A stub's link lost on the way is not its error: the
    program's end it brings fails the start once announced (remote_commands's
    connection_closed), as gdb's proceed says the loss, then "Command aborted."."""
    try:
        start()
    except TargetError as error:
        if not str(error).startswith(LINK_LOST):
            raise


def _running(ctx: Context, kind: str) -> Reply:
    ctx.extra["kind"] = kind
    return RUNNING


def run(ctx: Context, start: bool = False, first_instruction: bool = False,
        announce: Callable[[], None] | None = None) -> Reply:
    """`announce`: the console's `Starting program: ...`, once the old process is gone."""
    session = ctx.session
    inferior = session.inferior
    if not inferior.program:
        raise MiError('No executable file specified.\nUse the "file" or "exec-file" command.')
    held = remote_held(session)
    if held is not None and not held.extended:
        raise MiError('The "remote" target does not support "run".  Try "help target" or "continue".')
    claim_engine(session, starting=True)  # one live process at a time
    temporary: MiBreakpoint | None = None
    if start:  # as gdb, before the old process goes (its address then) or the probe does
        temporary, _ = session.breakpoints.create("main", temporary=True, pending_ok=True)
    if inferior.process is not None:
        kill(ctx, quiet=True)
    if temporary is not None and ctx.cli:  # told after the old process's end, as gdb
        ctx.console(session.breakpoints.announce(temporary))
    if announce is not None:
        announce()
    for counted in session.breakpoints.sorted():  # gdb's clear_breakpoint_hit_counts at a run
        counted.hits = counted.unseen_hits = 0
        del counted.logged_hits[:]
    # gdb's target_pre_inferior drops the last run's libraries (the program's stay)
    session.frames.forget_visited_in({path for path, _ in inferior.kept_libraries})
    config = session.launch_config()
    session.drop_probe(start=config)  # the probe is this start's process if started alike
    try:
        session.debugger.launch(config)
    except StartupExit as error:  # it started and ended at its exec: gdb keeps the tbreak
        if temporary is not None:
            session.notify("breakpoint-created", [("bkpt", session.breakpoints.tuple(temporary))])
        _startup_exit(ctx, error)
    except AliceError:
        if temporary is not None:
            session.breakpoints.delete(temporary)
        raise
    session.breakpoints.rearm_all()
    if temporary is not None:
        session.breakpoints.refresh()
        session.notify("breakpoint-created", [("bkpt", session.breakpoints.tuple(temporary))])
    session.before_resume()
    if first_instruction:  # gdb's starti: stopped before the loader's first instruction
        process = session.debugger.process
        assert process is not None
        session.report_held_stop(process.pid, session.debugger.read_registers(process.pid)["rip"])
    else:
        session.debugger.resume()
    return _running(ctx, "run")


def _startup_exit(ctx: Context, error: StartupExit) -> None:
    """What gdb tells of a process that exited before its program's first instruction:
    the failed exec's words, the process and its thread coming and going, its error."""
    session = ctx.session
    if error.output:
        ctx.log(error.output)
    group = f"i{session.inferior.number}"
    thread = str(session.inferior.next_thread)
    session.notify("thread-group-started", [("id", group), ("pid", str(error.pid))])
    session.notify("thread-created", [("id", thread), ("group-id", group)])
    session.notify("thread-exited", [("id", thread), ("group-id", group)])
    session.notify("thread-group-exited", [("id", group)])  # gdb records no exit code here
    raise MiError(error.summary)


def kill(ctx: Context, quiet: bool = False) -> None:
    session = ctx.session
    inferior = session.inferior
    session.require_process()
    inferior.killing, inferior.killing_quietly = True, quiet
    if inferior.running:
        try:
            session.debugger.interrupt()
        except AliceError:
            pass
    session.debugger.kill()
    session.wait_event(lambda event: isinstance(event, ev.Exited))
    inferior.killing = inferior.killing_quietly = False
    if inferior.process is not None:  # no Exited came: forget it anyway
        inferior.forget_process()


def _stopped_thread(ctx: Context) -> int:
    session = ctx.session
    session.require_process()
    if session.inferior.running:
        raise MiError("Cannot execute this command while the selected thread is running.")
    return session.thread_arg(ctx.thread)


def resume(ctx: Context, said: str = "Continuing.\n") -> Reply:
    """`said`: what a person is told (gdb's signal command says which signal goes)."""
    session = ctx.session
    _stopped_thread(ctx)
    if ctx.cli and ctx.from_tty:
        ctx.console(said)
    session.before_resume()
    _resuming(lambda: session.debugger.resume(session.locked_thread()))
    return _running(ctx, "continue")


def step(ctx: Context, kind: StepKind, count: int = 1, name: str = "step") -> Reply:
    session = ctx.session
    tid = _stopped_thread(ctx)
    if count < 1:
        raise MiError("Argument must be positive.") if count < 0 else MiError("Invalid count.")
    session.step_repeat = StepRepeat(kind, count - 1) if count > 1 else None
    if kind in (StepKind.OVER, StepKind.INTO):
        say_no_line(ctx, tid)
    session.before_resume()
    _resuming(lambda: session.debugger.step(tid, kind))
    return _running(ctx, name)


def finish(ctx: Context) -> Reply:
    session = ctx.session
    tid = _stopped_thread(ctx)
    level = session.inferior.selected_level if ctx.frame is None else ctx.frame
    frames = session.frames.stack(tid, 0, level + 2)
    if len(frames) <= level + 1:
        raise MiError('"finish" not meaningful in the outermost frame.')
    if ctx.cli and ctx.from_tty:
        ctx.console("Run till exit from #%d  %s\n" % (level, session.frames.describe(
            frames[level], tid, with_pc=level > 0 or not session.at_line_start(frames[level]))))
    session.before_resume()
    _resuming(lambda: session.debugger.step(tid, StepKind.OUT, level))  # an outer frame: until it returns
    # gdb's finish out of a trampoline, or code without debug info, knows no function
    # (find_pc_function): a plain stop, no reason
    unknown = frames[level].signal_trampoline or frames[level].source is None
    return _running(ctx, FINISH_FROM_TRAMPOLINE if unknown else "finish")


def until(ctx: Context, location: str | None, kind: str = "until-location", anywhere: bool = False) -> Reply:
    session = ctx.session
    tid = _stopped_thread(ctx)
    if not location:
        session.before_resume()
        session.debugger.step(tid, StepKind.UNTIL)
        return _running(ctx, "step")
    spec = session.breakpoints.normalize(location, last_displayed=True)  # the frame's file for N
    if not session.debugger.resolve_location(spec):
        raise MiError(session.breakpoints.not_found(spec))
    session.before_resume()
    session.debugger.run_until(tid, spec, anywhere, session.inferior.selected_level)  # gdb: the selected frame
    return _running(ctx, kind)


def stepi(ctx: Context, over: bool, count: int = 1) -> Reply:
    session = ctx.session
    tid = _stopped_thread(ctx)
    session.before_resume()
    if over:
        regs = session.debugger.read_registers(tid)
        pc = regs["rip"]
        insns = session.debugger.disassemble(pc, 1, syntax="att")
        if insns and insns[0].mnemonic.startswith("call"):
            session.debugger.run_until(tid, f"*{pc + insns[0].size:#x}")
            return _running(ctx, "stepi")
    session.step_repeat = StepRepeat(StepKind.INSTRUCTION, count - 1) if count > 1 else None
    _resuming(lambda: session.debugger.step_instruction(tid))
    return _running(ctx, "stepi")


def interrupt(ctx: Context) -> Reply:
    session = ctx.session
    if session.inferior.process is not None and session.inferior.running:
        session.debugger.interrupt()
    return None


def jump(ctx: Context, location: str) -> Reply:
    session = ctx.session
    tid = _stopped_thread(ctx)
    spec = session.breakpoints.normalize(location, last_displayed=True)  # the frame's file for N
    places = session.debugger.resolve_location(spec)
    if not places:
        raise MiError(session.breakpoints.not_found(spec))
    address = places[0].address
    session.debugger.write_register(tid, "rip", address)
    if ctx.cli and ctx.from_tty:
        ctx.console(f"Continuing at {address:#x}.\n")
    session.before_resume()
    session.debugger.resume(session.locked_thread(), jumped=tid)  # a breakpoint there is hit
    return _running(ctx, "continue")


def set_args(ctx: Context, text: str) -> None:
    inferior = ctx.session.inferior
    inferior.args_text = text
    try:
        inferior.args = shlex.split(text)
    except ValueError:
        inferior.args = text.split()


# --- MI commands ----------------------------------------------------------------------
def _count(args: list[str], command: str) -> int:
    if not args:
        return 1
    try:
        return int(args[0], 0)
    except ValueError:
        raise MiError(f"-{command}: Invalid count: {args[0]}") from None


def _exec_run(ctx: Context, args: list[str]) -> Reply:
    options = getopt("exec-run", args, long=("start", "all"))
    return run(ctx, start=options.has("start"))


def _exec_continue(ctx: Context, args: list[str]) -> Reply:
    getopt("exec-continue", args, long=("reverse", "all"))
    return resume(ctx)


def _exec_next(ctx: Context, args: list[str]) -> Reply:
    return step(ctx, StepKind.OVER, _count(getopt("exec-next", args, long=("reverse",)).rest, "exec-next"), "step")


def _exec_step(ctx: Context, args: list[str]) -> Reply:
    return step(ctx, StepKind.INTO, _count(getopt("exec-step", args, long=("reverse",)).rest, "exec-step"), "step")


def _exec_finish(ctx: Context, args: list[str]) -> Reply:
    getopt("exec-finish", args, long=("reverse",))
    return finish(ctx)


def _exec_until(ctx: Context, args: list[str]) -> Reply:
    return until(ctx, " ".join(args) or None)


def _exec_interrupt(ctx: Context, args: list[str]) -> Reply:
    return interrupt(ctx)


def _exec_next_instruction(ctx: Context, args: list[str]) -> Reply:
    rest = getopt("exec-next-instruction", args, long=("reverse",)).rest
    return stepi(ctx, over=True, count=_count(rest, "exec-next-instruction"))


def _exec_step_instruction(ctx: Context, args: list[str]) -> Reply:
    rest = getopt("exec-step-instruction", args, long=("reverse",)).rest
    return stepi(ctx, over=False, count=_count(rest, "exec-step-instruction"))


def _exec_arguments(ctx: Context, args: list[str]) -> Reply:
    raw = ctx.command.raw_args if ctx.command is not None else " ".join(args)
    set_args(ctx, raw)
    return None


def _exec_jump(ctx: Context, args: list[str]) -> Reply:
    if not args:
        raise MiError("-exec-jump: Usage: -exec-jump LOCATION")
    return jump(ctx, " ".join(args))


_CALLEE_SAVED = ("rbx", "rbp", "r12", "r13", "r14", "r15")  # the x86-64 SysV ABI's


def _exec_return(ctx: Context, args: list[str]) -> Reply:
    """gdb's mi_cmd_exec_return: return_command with its first argument, not from a tty."""
    session = ctx.session
    tid = _stopped_thread(ctx)
    write = None
    if args:
        function = returning_function(session, session.frames.frame(tid, session.inferior.selected_level))
        write = return_value(session, function, args[0])
    force_return(ctx)
    if write is not None:
        write(tid)
    top = session.frames.frame(tid, 0)
    return [("frame", session.frames.tuple(top, tid, args=True))]


_INTO_CALL = "Returning from a function called from GDB is not supported by aliceserver."


def refuse_return_into_call(ctx: Context) -> None:
    """gdb pops a function called from GDB and then its dummy frame, the registers back
    as before the call; the engine cannot pop that frame yet: refused before asking, never
    left in the dummy frame's return address (the entry point)."""
    session = ctx.session
    tid = _stopped_thread(ctx)
    level = session.inferior.selected_level
    frames = session.debugger.stack_trace(tid, 0, level + 2)
    if len(frames) > level + 1 and frames[level + 1].called_from_debugger:
        raise MiError(_INTO_CALL)


def force_return(ctx: Context) -> None:
    """Pop the selected frame and those inner to it (gdb's frame_pop): the caller's
    registers restored, its pc and stack pointer as the call left them."""
    session = ctx.session
    tid = _stopped_thread(ctx)
    level = session.inferior.selected_level
    # gdb's get_prev_frame_always: main pops into libc whatever `backtrace past-main` says
    frames = session.debugger.stack_trace(tid, 0, level + 2)
    if len(frames) <= level + 1:
        raise MiError("Cannot pop the initial frame.")
    if frames[level].inlined:
        level = _popped_for_inlined(frames, level)
    frame, caller = frames[level], frames[level + 1]
    if caller.called_from_debugger:
        raise MiError(_INTO_CALL)
    if frame.cfa is None:
        raise MiError("Cannot find the caller frame.")
    # The caller's registers as the unwinder restored them (CFI: saved where the callee
    # saved them, with or without a frame pointer); the callee-saved ones are the caller's.
    restored = {
        info.name: int(info.value, 0)
        for info in session.debugger.frame_variables(tid, level + 1, VariableScope.REGISTERS)
        if info.name in _CALLEE_SAVED
    }
    for name, saved in restored.items():
        session.debugger.write_register(tid, name, saved)
    session.debugger.write_register(tid, "rsp", frame.cfa)
    session.debugger.write_register(tid, "rip", caller.pc)
    session.inferior.selected_level = 0
    session.remember_stop(session.frames.frame(tid, 0))  # a `next` from here steps in the caller


def _popped_for_inlined(frames: list[StackFrame], level: int) -> int:
    """The frame whose pop pops the inlined call at `level`, as gdb's frame_pop does it: the
    registers it restores are the call's caller's, which an inlined call shares with the
    real frame it is in, as the nearest real frame inside unwinds them. gdb refuses only
    where frame 0 is an inlined call (its check is of the current frame, not the selected)."""
    inner = real_frame_inside(frames, level)
    if frames[0].inlined or inner is None:
        raise MiError("Can not force return from an inlined function.")
    return inner


def _exec_abort(ctx: Context, args: list[str]) -> Reply:
    kill(ctx)
    return None


def register(registry: MiRegistry) -> None:
    for name, handler in {
        "exec-run": _exec_run, "exec-continue": _exec_continue, "exec-next": _exec_next,
        "exec-step": _exec_step, "exec-finish": _exec_finish, "exec-until": _exec_until,
        "exec-interrupt": _exec_interrupt, "exec-next-instruction": _exec_next_instruction,
        "exec-step-instruction": _exec_step_instruction, "exec-arguments": _exec_arguments,
        "exec-jump": _exec_jump, "exec-return": _exec_return, "exec-abort": _exec_abort,
    }.items():  # fmt: skip
        registry.add(name, handler)
