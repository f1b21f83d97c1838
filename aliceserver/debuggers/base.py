"""IDebugger: the whole contract between the adapters and a debugger backend.

Every method may be called from any thread. Methods that start execution (`resume`,
`step_instruction`) return once the program runs; what happens next arrives as events on
each subscription (`subscribe`, before the launch or attach whose events are wanted).
Errors are raised as `TargetError` / `Unsupported` / `ProtocolError`.

Thread ids are the kernel's tids; the process's main thread has tid == pid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Callable, Protocol, TypeVar, runtime_checkable

from aliceserver.debuggers.eventsource import Inbox, Subscription
from aliceserver.debuggers.model import (
    BreakpointInfo,
    CatchKind,
    CodeLocation,
    CoreWritten,
    DynamicTypes,
    FrameDetails,
    FunctionSymbol,
    Instruction,
    LaunchConfig,
    LibrarySymbolsRead,
    LocationBreakpointInfo,
    Module,
    ProcessInfo,
    Registers,
    SectionSymbol,
    SignalPolicy,
    SourcePosition,
    StackFrame,
    StepKind,
    SymbolLocation,
    ThreadInfo,
    VariableInfo,
    VariableScope,
    VectorRegisters,
    VtableInfo,
    WatchKind,
    WatchpointInfo,
    WatchScope,
)

if TYPE_CHECKING:
    from aliceserver.debuggers.model import (  # symbol queries': made at their first use
        CompileUnitInfo,
        LineRange,
        ModuleSourceFiles,
        StaticProbe,
        SymbolSearchQuery,
        SymbolSearchResult,
    )
    from aliceserver.debuggers.printers.autoload import AutoLoad
    from aliceserver.debuggers.printers.commands import ScriptOutput
    from aliceserver.debuggers.sourcepaths import SourcePaths
    from aliceserver.debuggers.stepskips import StepSkips
    from aliceserver.debuggers.storage import SymbolStorage  # info scope's (symbolinfo.py)

# Decides on the tracer thread whether a hit stops; the argument is the thread id.
# Returning False counts the hit and lets the program go on without a Stopped event.
BreakpointCondition = Callable[[int], bool]
T = TypeVar("T")


class CallEntry(Protocol):
    """A call of a traced function at its first instruction; valid only inside the hook."""

    thread_id: int
    cfa: int  # the call's frame (rsp + 8 at entry); its CallExit carries the same

    def arguments(self) -> list[tuple[str, str]]:
        """(name, value) of each parameter, read per the ABI and formatted as gdb does."""
        ...


class CallExit(Protocol):
    """A traced call returning (at its `ret`); valid only inside the hook."""

    thread_id: int
    cfa: int

    def return_value(self) -> str | None:
        """The value returned, formatted; None for void or when unreadable."""
        ...


# Both run on the tracer thread while the thread is stopped; the program never stops for
# them. They must be quick and must not call the debugger. The entry hook returns whether
# this call's return is wanted (False: sampled out, no CallExit for it).
CallEntryHook = Callable[[CallEntry], bool]
CallExitHook = Callable[[CallExit], None]


@runtime_checkable
class FunctionRanges(Protocol):
    """Optional: where the code of the function holding an address lies, its entry's range
    first (DW_AT_ranges: gcc's f and its f.cold part), as gdb's disassemble lists them."""

    def function_ranges(self, address: int) -> list[tuple[int, int]] | None: ...


@runtime_checkable
class IDebugger(Protocol):
    def subscribe(self, into: Inbox | None = None) -> Subscription:
        """The events published from now on, in the engine's order: in a queue of the
        subscription's own, or delivered into `into` (the front end's own queue, which it
        may fill with items of its own). Close it when done; only the engine publishes."""
        ...

    @property
    def source_paths(self) -> SourcePaths:
        """Where the source files are here (substitute-path rules, source directories):
        one per session, set by every front end; positions keep the debug info's paths."""
        ...

    @property
    def auto_load(self) -> AutoLoad:
        """gdb's auto-load settings for the images' printer scripts (the safe path they
        must be in to run): one per session, changed in place by every front end."""
        ...

    # --- sessions -------------------------------------------------------------------
    @property
    def process(self) -> ProcessInfo | None: ...

    def launch(self, config: LaunchConfig) -> ProcessInfo:
        """Start the program and hold it stopped before its first instruction.

        Nothing runs until `resume`. With `config.stop_on_entry` the first resume stops
        at the program's entry point with a `Stopped(ENTRY)` event. A process held for its
        symbols (`config.symbols_only`) that was launched with this very config otherwise,
        and never ran, is taken as this start's, announced anew (ProcessStarted, its
        modules); one launched otherwise is killed first.
        """
        ...

    def attach(self, pid: int) -> ProcessInfo:
        """Attach to every thread of a running process and stop it (Stopped(PAUSE))."""
        ...

    def detach(self) -> None:
        """Remove every trap and watchpoint and let the process run on, untraced."""
        ...

    def kill(self) -> None:
        """Kill the process; an `Exited` event with the signal follows."""
        ...

    def close(self) -> None:
        """End the session: kill a launched process, detach an attached one, stop threads."""
        ...

    def write_core(self, path: str | None = None) -> CoreWritten:
        """Write an ELF core of the stopped process at `path` (`~` expanded; None: gdb's
        core.PID in the current directory): gdb's `gcore`. Refused in gdb's words with no
        live process (a core file is none) or while it runs."""
        ...

    # --- execution ------------------------------------------------------------------
    def is_running(self) -> bool: ...

    def resume(self, thread_id: int | None = None, *, jumped: int | None = None) -> None:
        """Resume every thread (all-stop), or only `thread_id` while the others stay stopped.
        `jumped`: a thread whose pc a jump set; a breakpoint there is hit, not stepped over."""
        ...

    def step_instruction(self, thread_id: int) -> None:
        """Execute one machine instruction in `thread_id`; the others stay stopped."""
        ...

    def interrupt(self) -> None:
        """Stop a running process; a `Stopped(PAUSE)` event follows."""
        ...

    def threads(self, *, details: bool = True) -> list[ThreadInfo]:
        """The process's threads; `details=False`: their ids, names and states only, no pc
        (a register read each) and no core (a longer /proc file), as DAP lists them."""
        ...

    def set_signal_policy(self, signal: int, policy: SignalPolicy) -> None: ...

    def signal_policy(self, signal: int) -> SignalPolicy: ...

    def set_catchpoint(self, kind: CatchKind, enabled: bool) -> None:
        """Stop (Stopped(EXEC) / Stopped(FORK)) when the program execs or forks."""
        ...

    # --- breakpoints and watchpoints ------------------------------------------------
    def trace_calls(
        self, function: FunctionSymbol, on_entry: CallEntryHook, on_exit: CallExitHook, *, depth: int = 1
    ) -> int:
        """Report every call of `function` (entry with arguments, return with its value,
        values formatted `depth` levels deep) without stopping the program; works while it
        runs. Invisible to `breakpoints()`. Returns an id for `untrace_calls`."""
        ...

    def untrace_calls(self, trace_id: int) -> None: ...

    def insert_location_breakpoint(
        self,
        location: str,
        *,
        condition: BreakpointCondition | None = None,
        temporary: bool = False,
        enabled: bool = True,
    ) -> LocationBreakpointInfo:
        """A breakpoint on "file:line" / "function" / "*address" at every place it resolves
        to, now and whenever a library loads (pending until then). Its hits report the ids
        of the address breakpoints it owns (`breakpoint_ids`)."""
        ...

    def remove_location_breakpoint(self, location_breakpoint_id: int) -> None: ...

    def enable_location_breakpoint(self, location_breakpoint_id: int, enabled: bool) -> None:
        """Whether the places it binds at later library loads are trapped (disabled, it still
        binds, as gdb re-sets disabled breakpoints); its bound ones are `enable_breakpoint`'s."""
        ...

    def location_breakpoints(self) -> list[LocationBreakpointInfo]: ...

    def enable_breakpoint(self, breakpoint_id: int, enabled: bool) -> BreakpointInfo: ...

    def breakpoints(self) -> list[BreakpointInfo]: ...

    def insert_watchpoint(
        self, address: int, size: int, kind: WatchKind, scope: WatchScope | None = None
    ) -> WatchpointInfo:
        """A hardware watchpoint on `size` bytes at `address`; with a `scope`, only that
        thread is watched and the watch is deleted when that frame is left (a
        Stopped(WATCHPOINT_SCOPE), or `watches_left` of the stop where it happens)."""
        ...

    def remove_watchpoint(self, watchpoint_id: int) -> None: ...

    def watchpoints(self) -> list[WatchpointInfo]: ...

    # --- state ----------------------------------------------------------------------
    def read_registers(self, thread_id: int) -> Registers: ...

    def write_register(self, thread_id: int, name: str, value: int) -> None: ...

    def read_vector_registers(self, thread_id: int) -> VectorRegisters: ...

    def read_memory(self, address: int, size: int) -> bytes:
        """Program memory as the program sees it (software traps hidden)."""
        ...

    def write_memory(self, address: int, data: bytes) -> None: ...

    # --- symbols --------------------------------------------------------------------
    def modules(self) -> list[Module]: ...

    def lookup_address(self, address: int) -> SymbolLocation: ...

    def section_symbol(self, address: int) -> SectionSymbol | None:
        """The symbol `info symbol` names `address` by, with its section (gdb's
        lookup_minimal_symbol_by_pc_section); None: no section or no symbol before it."""
        ...

    def functions(self, named: Callable[[str], bool] | None = None) -> list[FunctionSymbol]:
        """Every function of the loaded modules that have line info (for trace patterns);
        with `named`, only those whose name it accepts (no record made for the rest)."""
        ...

    def lookup_symbol(self, name: str) -> int:
        """Runtime address of a symbol (function or object); TargetError if none."""
        ...

    def disassemble(self, address: int, count: int, *, syntax: str = "intel") -> list[Instruction]: ...

    # --- source level (DWARF) -------------------------------------------------------
    def resolve_location(self, spec: str) -> list[CodeLocation]:
        """Addresses for "file:line", "function" (C++ qualified/overloaded, Rust paths) or
        "*ADDRESS"; a function resolves past its prologue. Empty: nothing matches (yet)."""
        ...

    def source_position(self, address: int) -> SourcePosition | None: ...

    def source_files(self) -> list[str]:
        """Every source file the loaded modules' line tables name (sorted, as recorded:
        a library's may be paths of its build machine)."""
        ...

    def source_name(self, path: str) -> str:
        """The name the debug info gives the source file at `path` (a SourcePosition's):
        gdb's `file=`, the unit's DW_AT_name for its primary file (relative when compiled
        with a relative path), else `path` itself."""
        ...

    def has_debug_info(self, module_path: str) -> bool:
        """Whether the loaded module at `module_path` has DWARF, itself or in a separate
        debug file (gdb's `info sharedlibrary` `Yes` rather than `Yes (*)`)."""
        ...

    def symbols_loaded(self, module_path: str) -> bool:
        """Whether the symbols of the library at `module_path` are read (False after
        `nosharedlibrary` until `sharedlibrary` reads them again: gdb's `Syms Read` No)."""
        ...

    def unload_library_symbols(self) -> list[Module]:
        """gdb's `nosharedlibrary`: drop the symbols of every shared library (the program
        keeps them mapped); their frames show `??`, their breakpoints become pending.
        Returns those libraries; none before the program runs."""
        ...

    def load_library_symbols(self, paths: list[str] | None = None) -> list[LibrarySymbolsRead]:
        """gdb's `sharedlibrary`: read again the symbols of the libraries at `paths`
        (None: every one) that `nosharedlibrary` dropped; returns those read."""
        ...

    def static_probes(self) -> list[StaticProbe]:
        """The SystemTap SDT probes of the loaded images (the program's own before it
        runs), in image order, as their notes list them."""
        ...

    def compile_unit(self, path: str) -> CompileUnitInfo | None:
        """The compilation unit whose primary source file is `path` (a SourcePosition's),
        for gdb's `info source`; None: no loaded unit was compiled from it."""
        ...

    def line_range(self, address: int) -> LineRange | None:
        """The line-table row holding `address` (gdb's find_pc_line); None: no line info."""
        ...

    def line_start(self, file: str, line: int) -> LineRange | None:
        """gdb's find_line_pc: the row where `line` of `file` starts (its first statement),
        or where the next line with code does; None: no code at or after it. ProtocolError
        (`No source file named FILE.`) when no line table names the file."""
        ...

    def line_table(self, file: str) -> list[tuple[int, int]]:
        """gdb's line table of the source file `file` names, for `-symbol-list-lines`:
        (address, line) in address order, line 0 where a run of its code ends.
        ProtocolError (`No source file named FILE.`) when no line table names it."""
        ...

    def symbol_storage(self, name: str, thread_id: int | None = None, level: int = 0) -> SymbolStorage:
        """Where `name` lives, looked up as gdb does from the frame (globals and functions
        without a frame); ProtocolError `No symbol "NAME" in current context.` if nowhere."""
        ...

    def scope_storage(self, address: int) -> list[SymbolStorage]:
        """The symbols of the blocks holding `address`, innermost block first, up to its
        function (gdb's `info scope`: each block in declaration order)."""
        ...

    def batch(self, fn: Callable[[], T]) -> T:
        """`fn()`, the engine calls it makes answered in place instead of handed over one
        by one (the ptrace engine runs it on its tracer thread: `rbreak .` on 10,000
        functions made 40,000 handoffs, each a wake-up of the other thread, slow on a
        busy machine). Only while the program is stopped or not started; `fn` must not
        wait for the program, and should take well under a second."""
        ...

    def module_source_files(self, program_only: bool = False) -> list[ModuleSourceFiles]:
        """Every module's source files (gdb's `info sources`), main first; `program_only`:
        the program's alone (before `run` gdb has read no library)."""
        ...

    def search_symbols(self, query: SymbolSearchQuery) -> SymbolSearchResult:
        """gdb's symbol search (`info functions`, `-symbol-info-types`...): the symbols of
        query.domain with debug info, sorted as gdb sorts, and the ELF symbols without.
        A regex that does not compile raises ProtocolError."""
        ...

    def stack_trace(
        self, thread_id: int, start: int = 0, count: int | None = None, *, arguments: bool = False
    ) -> list[StackFrame]:
        """Frames `start` .. `start + count` (all when count is None), innermost first.
        `arguments`: frame 0's arguments (frame_variables' ARGUMENTS) will be asked for
        next (MI's *stopped): made in the same handoff."""
        ...

    def frame_details(self, thread_id: int, level: int) -> FrameDetails:
        """The frame's source language and where it saved its caller's registers."""
        ...

    def frame_registers(self, thread_id: int, level: int) -> Mapping[str, int | None]:
        """The general registers (read_registers' names) as frame `level` has them: those
        its callees saved, the inner frame's for the ones nobody saved (gdb's same value),
        None for one the CFI leaves undefined (gdb's `<not saved>`)."""
        ...

    def frame_variables(
        self, thread_id: int, level: int, scope: VariableScope, *, aggregate_values: bool = True,
        dynamic: DynamicTypes = DynamicTypes.NONE, entry_values: bool = True,
    ) -> list[VariableInfo]:
        """The frame's variables of `scope`. `aggregate_values=False` leaves the value of
        structs, unions and arrays empty (MI's simple values, gdb's scalar frame
        arguments): formatting them is most of the cost, and those callers drop it.
        `dynamic`: C++ pointers and references as their objects' dynamic types.
        `entry_values=False`: the arguments without their values at the function's entry
        (gdb's NAME@entry, which only gdb's front ends show; finding them costs a call
        site's lookup and more reads); they may still come where already known."""
        ...

    def variable_children(
        self, reference: int, start: int = 0, count: int | None = None
    ) -> list[VariableInfo]:
        """Children of a value shown earlier in this stop (references die on resume)."""
        ...

    def evaluate(
        self, expression: str, thread_id: int | None = None, level: int = 0, fmt: str | None = None,
        *, dynamic: DynamicTypes = DynamicTypes.NONE, type_only: bool = False, calls: bool = True,
        record: bool = False,
    ) -> VariableInfo:
        """A C-like expression in a frame (assignments write); `fmt` is gdb's x/d/o/t/c/u/a/z;
        `dynamic` says where C++ dynamic types replace static ones (gdb's print object).
        `type_only`: gdb's whatis and ptype, the type alone (pointers not followed, nothing
        written, `value` empty). `calls`: whether `f(x)` may run the program's functions
        (False: gdb's "You can't do that without a process to debug.", as before `run`).
        `record`: add the value to the value history (gdb's print), its number in `history`.

        Errors are ProtocolError with gdb's message (`No symbol "x" in current context.`).
        """
        ...

    def set_call_options(self, *, unwind_on_signal: bool | None = None, may_call: bool | None = None,
                         strict_types: bool | None = None) -> None:
        """How `f(x)` in expressions runs the program's functions: `unwind_on_signal` (gdb's
        `set unwindonsignal`, off by default) restores the state before a call that gets a
        signal; `may_call` False (gdb's `set may-call-functions off`) refuses every call;
        `strict_types` False (gdb's `set check type off`) lets a C++ overload taking a pointer
        take a nonzero integer."""
        ...

    def set_scheduler_locking(self, *, steps_alone: bool) -> None:
        """gdb's `set scheduler-locking step` (and `on`): True lets only the stepping
        thread run during source steps (step, next, finish, until, advance); the others
        stay stopped. (`on` for continue is resume(thread_id).)"""
        ...

    def set_step_skips(self, skips: StepSkips | None) -> None:
        """gdb's skip list: a `step` (StepKind.INTO) entering a function the predicate
        says True for steps over it instead, as gdb's step into a skipped function or file
        (finish and until are unaffected). None: nothing is skipped."""
        ...

    def set_backtrace_past_main(self, on: bool) -> None:
        """gdb's `set backtrace past-main` (off by default): off, main has no caller for
        entry values (gdb's get_prev_frame stops there), so neither main's parameters nor
        the call site values computed from them have NAME@entry. The stack traces' own
        frames past main stay the front end's to show or not."""
        ...

    def set_default_source(self, source: Callable[[], str | None]) -> None:
        """gdb's current source file for expressions without a frame (before `run`): its
        unit's statics and types come first, as the static block of gdb's default symtab
        (`ptype foo` after `list charfoo`). `source` gives its path, None: none yet."""
        ...

    def set_print_limits(self, *, elements: int, repeats: int, addresses: bool = True,
                         array_indexes: bool = False, output_radix: int = 10,
                         input_radix: int = 10, nibbles: str = "", symbols: bool = True,
                         null_stop: bool = False, ascii: bool = False, static_members: bool = True,
                         max_depth: int = 20, unions: bool = True) -> None:
        """gdb's `print elements` (string chars and array elements shown), `print repeats`
        (a run of equal elements at least this long shows as `<repeats N times>`) and
        `print address` (False: a pointer shows as its `<symbol+offset>` alone) and
        `print array-indexes` (each element as `[I] = V`) and `output-radix` (8, 10 or 16:
        integers, characters and booleans shown in that base unless a print format says);
        `input_radix` (gdb's, at least 2) is the base of the numbers expressions are given;
        `nibbles` (`print nibbles` on) /t's separator of groups of four digits, the current
        language's (" ", C++'s "'", Rust's "_"); `symbols` gdb's `print symbol` (off: a data
        pointer shows no <symbol>); `null_stop` gdb's `print null-stop` (a char array's
        string ends at its first NUL); `ascii` gdb's `set target-charset ASCII` (a string's
        bytes past 127 in octal, UTF-8 or not); `static_members` gdb's `print static-members`
        (off: a class's static members are not shown); `max_depth` gdb's `print max-depth`
        (structs, unions and arrays nested deeper show as `{...}`); `unions` gdb's `print union`
        (off: a union inside another value shows as `{...}`)."""
        ...

    def history_count(self) -> int:
        """How many values the value history holds (evaluate's `record` adds them: `$N`)."""
        ...

    def set_convenience(self, name: str, number: int) -> None:
        """`$name` an int, set by the front end (gdb's $bpnum, $_hit_bpnum, $_hit_locno);
        cheap: taken by the next evaluation."""
        ...

    def convenience_names(self) -> list[str]:
        """The convenience variables (`$name`), newest first, as gdb's show convenience."""
        ...

    def set_examined(self, address: int, size: int, contents: bytes | None) -> None:
        """After gdb's `x`: `$_` points at the last unit shown (`size` bytes at `address`),
        `$__` holds its `contents` (None: void, as after x/s and x/i)."""
        ...

    def run_python(
        self, code: str | None, path: str | None = None, thread_id: int | None = None, level: int = 0
    ) -> ScriptOutput:
        """gdb's `python CODE` (`code`) and `source FILE.py` (`path`): the user's code run
        against gdb's Python API in this session (printers it registers apply to later
        values), at the frame when the program is stopped. What it printed and raised is
        returned; OSError when the file cannot be read, Unsupported without Python API."""
        ...

    def describe_type(
        self, expression: str, thread_id: int | None = None, level: int = 0, *, raw: bool = False,
        flags: str = "",
    ) -> str:
        """gdb's `ptype` text of the expression's type (what follows `type = `): typedefs at
        the top resolved, struct, union and enum bodies written out, a C++ class named as
        the scripts' type printers name it unless `raw` (`ptype/r`), else written out
        (`flags`: gdb's m, M, t, T leave out or keep its methods and typedefs). With `o` in
        `flags` (`x`: hex offsets) a struct or union is laid out with its offsets and the
        whole line is returned, gdb's header and `type = ` included. Errors as evaluate."""
        ...

    def printed_type_name(self, expression: str, thread_id: int | None = None, level: int = 0) -> str | None:
        """The expression's type as gdb's `whatis` names it through the scripts' type
        printers (`std::vector<int>`); None where they rename nothing. Errors as evaluate."""
        ...

    def vtables(self, expression: str, thread_id: int, level: int = 0) -> list[VtableInfo]:
        """gdb's `info vtbl`: the vtables of the C++ object the expression gives (or points
        at), primary first by address; empty when it has none. Errors as evaluate."""
        ...

    def expression_condition(self, expression: str) -> BreakpointCondition:
        """A breakpoint condition evaluating `expression` in the stopped thread's frame 0.

        Parsed once here (a syntax error raises ProtocolError now); a failure to evaluate at
        a hit stops, as gdb does.
        """
        ...

    def condition_problem(self, expression: str, address: int) -> str | None:
        """gdb's error if `expression` names something not visible at code `address` (it
        parses a condition in each location's block); None: every name is found there.
        A syntax error raises ProtocolError."""
        ...

    def breakpoint_condition(
        self,
        condition: str | None = None,
        hit_condition: str | None = None,
        log_message: str | None = None,
    ) -> BreakpointCondition:
        """What a user breakpoint does at a hit: stop only when `condition` holds and its
        count of such hits meets `hit_condition` (`N`, `= N`, `>= N`, `> N`, `% N`); with a
        `log_message` (`x = {x}`) print it as console Output instead of stopping."""
        ...

    def watch_expression(
        self, expression: str, kind: WatchKind, thread_id: int | None = None, level: int = 0, *,
        software: bool = False,
    ) -> WatchpointInfo:
        """A hardware watchpoint on the lvalue `expression` names in a frame (or on what an
        expression that is none reads); when the expression reads that frame's locals, it
        is scoped to the frame (`watch_scope`). A write watch the debug registers cannot
        hold, or one asked `software`, is gdb's software watchpoint (`info.software`):
        the program single-steps while it is enabled."""
        ...

    def watch_scope(
        self, expression: str, thread_id: int | None = None, level: int = 0
    ) -> WatchScope | None:
        """The frame a watch on `expression` belongs to: None when it reads globals only."""
        ...

    def run_until(self, thread_id: int, location: str, anywhere: bool = False, level: int = 0) -> None:
        """Run until `thread_id` reaches `location` ("file:line", "function", "*address")
        in the frame at `level` (an inlined call's: the function it is in) or an outer one
        (in any frame with `anywhere`: gdb's `advance`), or that frame returns, whichever
        comes first (gdb's `until LOCATION`, by the selected frame); a Stopped(STEP)
        follows, its description says which."""
        ...

    def step(self, thread_id: int, kind: StepKind, level: int = 0) -> None:
        """Source-line stepping (into / over / out), one instruction, or UNTIL: gdb's
        `until` without argument, a `next` that does not go back in loops (it stops at a
        line after the current one, or when the frame returns). A Stopped(STEP) or
        Stopped(FUNCTION_FINISHED) follows; a breakpoint or signal on the way wins.
        `level` (OUT only): finish that frame, gdb's `up` then `finish`: run until it
        returns (by its frame, not the first return to its caller's address)."""
        ...
