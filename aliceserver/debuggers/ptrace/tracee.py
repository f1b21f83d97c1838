"""A traced thread's record, and the small vocabularies the inferior's parts share."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aliceserver.debuggers.ptrace import binding

if TYPE_CHECKING:  # stepping.py is imported by a step's first plan (source/steps.py)
    from aliceserver.debuggers.source.stepping import StepPlan


@dataclass(slots=True)
class Tracee:
    tid: int
    running: bool = False
    new: bool = False  # auto-attached; its first stop has not arrived yet
    regs: binding.UserRegs = field(default_factory=binding.UserRegs)
    regs_valid: bool = False
    regs_dirty: bool = False
    pending_signal: int = 0  # delivered when the thread resumes
    single_stepping: bool = False  # its last resume was PTRACE_SINGLESTEP
    soft_stepping: bool = False  # that step is a continue's, for the software watchpoints
    stepping: bool = False  # a client's instruction step is in flight
    step_over: int | None = None  # address of the trap being stepped over (byte removed)
    after_step_over: "AfterStep" = field(default_factory=lambda: AfterStep.REPORT)
    interrupt_sent: bool = False  # maybe pending still: any other ptrace-stop spends it
    deferred_hit: bool = False  # hit a trap while others were being stopped: judged on resume
    # A jump set its pc, or a write moved it from where it stopped: a trap there is hit, not
    # stepped over (gdb steps over a breakpoint only at the pc its thread stopped at)
    jumped: bool = False
    moved_from: int | None = None  # the pc it stopped at, once a write moved it (until it runs)
    plan: StepPlan | None = None  # a source-line step in progress
    plan_traps: list[int] = field(default_factory=list)  # internal breakpoints the plan runs to
    # A stepi's signal taken mid-step runs its handler to the trap at the interrupted pc
    # (gdb's step-resume breakpoint); the stepi is taken again there.
    step_after_handler: bool = False
    gone: bool = False  # exited, or a zombie leader waiting for its threads
    # Its last stop was a ptrace event's (exec, clone, fork): inside the system call still.
    event_stop: bool = False
    launched: bool = False  # that stop is the launch's exec, where gdb's startup holds it
    # A job-control stop signal it was resumed with (passed on): its group-stop is told
    # once, as gdb tells it (Program received signal SIGTSTP again at the continue)
    passed_stop: int = 0


class Run(enum.Enum):
    """The process's run state."""

    STOPPED = "stopped"  # every thread is stopped and the client knows it
    RUNNING = "running"
    EXITED = "exited"


class AfterStep(enum.Enum):
    """What follows when a step over a trap completes."""

    REPORT = "report"  # a client's instruction step: report it
    RESUME_ALL = "resume-all"  # part of resuming every thread: go on resuming
    CONTINUE_SELF = "continue-self"  # resuming this one thread: continue it


class _Action(enum.Enum):
    RESUME = "resume"  # nothing to report; the thread may go on
    NONE = "none"  # nothing to report, and the thread is taken care of


_RESUME = _Action.RESUME
_NONE = _Action.NONE
