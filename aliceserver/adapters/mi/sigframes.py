"""How the console and MI show a signal trampoline frame, gdb's SIGTRAMP_FRAME: the frame
of the kernel's return path (__restore_rt) between a signal handler and the frame the
signal interrupted. gdb's print_frame_info names it `<signal handler called>` and says
nothing more of it (no arguments, no source); `info frame` has no frame base for it and
lists the interrupted registers' slots in the kernel's sigcontext."""

from __future__ import annotations

from aliceserver.debuggers.model import FrameDetails, StackFrame

SIGNAL_HANDLER_CALLED = "<signal handler called>"
FINISH_FROM_TRAMPOLINE = "finish-sigtramp"  # the run kind of a finish out of a trampoline


def is_label_frame(frame: StackFrame) -> bool:
    """A frame gdb shows by a label alone: a signal trampoline, or a call's dummy frame."""
    return frame.signal_trampoline or frame.called_from_debugger


def label(frame: StackFrame) -> str:
    return SIGNAL_HANDLER_CALLED if frame.signal_trampoline else frame.function or "??"


def info_frame_tail(frame: StackFrame, details: FrameDetails, sp: str) -> str:
    """`info frame`'s lines after the frame links at a trampoline: gdb finds no frame base
    (get_frame_args_address is 0) and the interrupted sp in the sigcontext."""
    slots = dict(details.saved_registers)
    text = " Arglist at unknown address.\n Locals at unknown address,"
    at = slots.pop(sp, None)
    text += f" Previous frame's sp at {hex(at)}\n" if at is not None else f" Previous frame's sp is {hex(frame.cfa or 0)}\n"
    if slots:
        text += " Saved registers:\n " + ",".join(f" {name} at {hex(addr)}" for name, addr in slots.items()) + "\n"
    return text
