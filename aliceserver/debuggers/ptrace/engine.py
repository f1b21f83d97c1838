"""PtraceDebugger: the Linux x86-64 engine behind the IDebugger contract.

One tracer thread issues every ptrace call (tracer.py); the live process's lifecycle and
execution control are LiveSession's (live.py). Events go to every front end's subscription
straight from the thread that saw them (eventsource.py): the tracer never waits on a front
end, and no relay thread delays a stop.

The engine composes the rest as objects (no mixins): the source level's (debuggers/source:
Frames, Expressions, Locations, Stepping, symbol queries...) over ProcessAccess (state.py),
the live backend's own (Breakpoints, CoreFiles), the parts made on first use (engine_lazy.py:
call tracing, gcore, symbol queries), ImageLoading for a new image or library (images.py),
and the live-or-remote routing (routing.py). Each IDebugger method delegates to one object.
"""

from __future__ import annotations

import atexit
import gc
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.base import BreakpointCondition, CallEntryHook, CallExitHook
from aliceserver.debuggers.calls.settings import CallSettings
from aliceserver.debuggers.events import Output, Stopped
from aliceserver.debuggers.eventsource import EventSource, Inbox, Subscription
from aliceserver.debuggers.librarypaths import LibraryPaths
from aliceserver.debuggers.model import (
    BreakpointInfo,
    CatchKind,
    CodeLocation,
    CoreWritten,
    DynamicTypes,
    Frame,
    FrameDetails,
    FunctionSymbol,
    Instruction,
    LaunchConfig,
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
from aliceserver.debuggers.printers.autoload import AutoLoad
from aliceserver.debuggers.ptrace import binding, debugregs
from aliceserver.debuggers.ptrace.breakpoints import Breakpoints
from aliceserver.debuggers.ptrace.conditions import ExpressionCondition
from aliceserver.debuggers.ptrace.coretarget import CoreFiles
from aliceserver.debuggers.ptrace.dummyframes import DummyFrames
from aliceserver.debuggers.ptrace.engine_lazy import LazyParts
from aliceserver.debuggers.ptrace.engine_queries import EngineQueries
from aliceserver.debuggers.ptrace.engine_symbols import EngineSymbolQueries
from aliceserver.debuggers.ptrace.images import ImageLoading
from aliceserver.debuggers.ptrace.libraries import LibraryTracker
from aliceserver.debuggers.ptrace.live import LiveSession
from aliceserver.debuggers.ptrace.routing import (
    AddressTraps,
    Execution,
    ProgramCallers,
    UserBreakpoints,
)
from aliceserver.debuggers.ptrace.state import ProcessAccess
from aliceserver.debuggers.ptrace.tracer import Tracer
from aliceserver.debuggers.ptrace.traps import TrapTable
from aliceserver.debuggers.ptrace.watch import WatchSlots
from aliceserver.debuggers.remote.session import RemoteHooks, RemoteSession
from aliceserver.debuggers.remote.targetfiles import StubFiles
from aliceserver.debuggers.signals import default_policy
from aliceserver.debuggers.source.dollars import SessionDollars
from aliceserver.debuggers.source.evaluation import Expressions
from aliceserver.debuggers.source.frames import Frames
from aliceserver.debuggers.source.library_symbols import LibrarySymbolControl
from aliceserver.debuggers.source.locations import Locations
from aliceserver.debuggers.source.printing import printer_host
from aliceserver.debuggers.source.sourcesymbols import DebugInfos, SourceSymbols
from aliceserver.debuggers.source.steps import Stepping
from aliceserver.debuggers.source.stopcache import StopCache
from aliceserver.debuggers.source.variables import VariableStore
from aliceserver.debuggers.sourcepaths import SourcePaths
from aliceserver.debuggers.symbols.disasm import Disassembler
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.dynamic import Rtti
from aliceserver.debuggers.symbols.elf import ElfCache
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.debuggers.target import CoreOpened, RemoteConnected, RemoteTimeouts
from aliceserver.debuggers.targetregisters import TargetRegister
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.printers.commands import ScriptOutput
    from aliceserver.debuggers.ptrace.patched_calltrace import CallRecorder
    from aliceserver.debuggers.stepskips import StepSkips
    from aliceserver.debuggers.stubservices import StubServices
    from aliceserver.debuggers.symbols.dwarf.expr.ast import Expr

log = logging.getLogger(__name__)


class PtraceDebugger(EngineQueries, EngineSymbolQueries):
    def __init__(self, cache_dir: str | None = None) -> None:
        """`cache_dir`: where indexes are kept (`--cache-dir`; default cachedir.py's)."""
        # At exit, the collector would walk every object once more to free what the OS frees
        # anyway (20 ms after a short session); frozen, it skips them. Registered once.
        atexit.unregister(gc.freeze)
        atexit.register(gc.freeze)
        self._events = EventSource()  # front ends subscribe; only the engine publishes
        self._traps = TrapTable()
        self._watches = WatchSlots()
        self._watch_gates: dict[str, Callable[[Stopped], bool]] = {}  # set_watch_gate's, by front end
        self._policies: dict[int, SignalPolicy] = {}
        self._thread_signals_quiet = False  # (see _quiet_thread_signals)
        self._elf_cache = ElfCache()
        self._symbols = ProcessSymbols(self._elf_cache)
        self._disassembler = Disassembler(follow=lambda: self._source.arch)  # the program's
        self._debug_infos: DebugInfos = {}
        self.source_paths = SourcePaths()  # the session's, for every front end
        self._index_cache = IndexCache(cache_dir)  # one per session: it warns once
        self._source = SourceSymbols(self._symbols, self._index_cache, report=self._events.put,
                                     debug_infos=self._debug_infos, source_paths=self.source_paths)  # fmt: skip
        self._libc = binding.Libc()
        self._tracer = Tracer(self._libc)
        self._call = self._tracer.call  # every ptrace call runs on the tracer thread
        self._stop_cache = StopCache(lambda: self._variables.values_changed())
        self._access = ProcessAccess(
            self._call, core=lambda: self._cores.current, traps=self._traps, symbols=self._symbols, source=self._source,
            disassembler=self._disassembler, libc=self._libc, stop_cache=self._stop_cache,
            forget_thread=lambda tid, moved: self._frames.forget_thread(tid, pc_moved=moved), forget_stop_state=self._forget_stop_state,
            process=lambda: self.process, remote=lambda: self._remote.live(),
        )  # fmt: skip
        self.library_paths = LibraryPaths()  # the session's sysroot and solib-search-path
        self._stub_files = StubFiles(self._index_cache.directory, self._events.put)
        self._tracker = LibraryTracker(self._symbols, self._elf_cache, self._access.read_raw, self.library_paths)
        rtti = Rtti(self._access.vtable_class, lambda name: self._expressions.find_class(name))
        self._variables = VariableStore(self._access.symbolize, rtti)
        self.auto_load = AutoLoad()  # the session's, kept across programs
        self._variables.printers = printer_host(lambda: self._source, auto_load=self.auto_load,
                                                tell=lambda category, text: self._events.put(Output(category, text)),
                                                script_search=self.source_paths.script_search_path)
        self.call_settings = CallSettings()  # calls into the program (infcall.py)
        self._compose_source_level()
        self._tracer.start(on_exit=self._live.finish)

    def _compose_source_level(self) -> None:
        """The live session, the source level's objects (debuggers/source) over this
        engine's services; the core files read in place of a live process, and written
        from it; last, ImageLoading, which reaches most of them."""
        access = self._access
        def loader_trap_hit(tid: int) -> None:  # the one callable Breakpoints knows the loader's trap by
            self._images.on_library_event(tid)
        self._breakpoints = Breakpoints(access, traps=self._traps, watches=self._watches, symbols=self._symbols,
                                        disassembler=self._disassembler, libc=self._libc,
                                        library_event=loader_trap_hit)  # fmt: skip
        self._cores = CoreFiles(access, self._events, self._tracker, live=lambda: access.inferior is not None,
                                new_source_symbols=self._new_source_symbols)  # fmt: skip
        self._lazy = LazyParts(access, traps=self._traps, symbols=self._symbols, disassembler=self._disassembler,
                               libc=self._libc, frames=lambda: self._frames)  # fmt: skip
        self._dollars = SessionDollars(access, self._live_threads, self._libc.siginfo_bytes)
        self._live = LiveSession(
            self._tracer, access, libc=self._libc, events=self._events, traps=self._traps, watches=self._watches,
            breakpoints=self._breakpoints, cores=self._cores, dollars=self._dollars, stop_cache=self._stop_cache,
            call_settings=self.call_settings, policy=self.signal_policy, forget_stop_state=self._forget_stop_state,
            load_image=lambda inferior, at_launch: self._images.load_image(inferior, at_launch),
            announce_image=lambda: self._images.announce_image(),
        )  # fmt: skip
        self._stopped_thread = self._live.stopped_thread  # read by conditions at each hit
        self._live.before_report = lambda stop: self._make_asked_stacks(stop.thread_id)
        self.jump_patches = self._live.jump_patches  # `set breakpoint jump-patches`
        self._remote = RemoteSession(RemoteHooks(
            access.run_on_engine, self._events, self._traps,
            lambda process, program: self._images.load_remote_process(process, program), self._forget_stop_state,
            self.signal_policy, self._dollars.record_exit, self._tracer.post, library_event=loader_trap_hit,
            library_change=lambda: self._images.library_change, reported=self._stop_told,
            idle_on_engine=self._tracer.idle_wait,
        ))  # fmt: skip
        self.set_remote_timeouts = self._remote.set_timeouts  # `set remotetimeout` mid-session
        self._run = Execution(access, self._live, self._remote, self._cores, self._stop_cache)  # live or remote
        callers = ProgramCallers(access, self._remote, self.call_settings, self._tracker, self._symbols,
                                 self._after_program_call)  # f(x) in expressions, live or remote
        calls = DummyFrames(self.call_settings, lambda: self._tracker.entry)
        self._frames = Frames(access, self._variables, self._stop_cache, calls)
        self._user_breakpoints = UserBreakpoints(access, self._breakpoints, self._remote, self._run,
                                                 lambda tid: self._frames.stack_trace(tid, 0, None))  # fmt: skip
        self._expressions = Expressions(
            access, self._frames, self._variables, self._stop_cache, self._dollars, self._events,
            callers=callers.for_thread, conditions=self._compiled_condition,
        )  # fmt: skip
        self.register_lists = self._expressions.register_lists  # MI's lists of registers
        self._locations = Locations(access, self._frames, self._expressions, self._events,
                                    AddressTraps(self._breakpoints, self._remote))  # fmt: skip
        self._stepping = Stepping(access, self._frames, self._locations, self._variables, self._dollars,
                                  self._stop_cache, self._disassembler, self._events, self._run)  # fmt: skip
        self._library_symbols = LibrarySymbolControl(
            access, process_live=lambda: access.inferior is not None,
            unbind_module=lambda module: self._locations.unbind_module(module, still_mapped=True),
            rebind_breakpoints=self._locations.bind_all, forget_stop_state=self._forget_stop_state,
        )  # fmt: skip
        self._images = ImageLoading(
            access, events=self._events, tracker=self._tracker, symbols=self._symbols, elf_cache=self._elf_cache,
            library_paths=self.library_paths, stub_files=self._stub_files, traps=self._traps, watches=self._watches,
            libc=self._libc, breakpoints=self._breakpoints, remote=self._remote, locations=self._locations,
            library_symbols=self._library_symbols, new_source_symbols=self._new_source_symbols,
            loader_trap_hit=loader_trap_hit, index_cache=self._index_cache,
        )  # fmt: skip

    # --- what the composed objects ask of the engine ---------------------------------
    def _live_threads(self) -> tuple[int, Iterable[int]] | None:
        inferior = self._access.inferior
        return None if inferior is None else (inferior.pid, inferior.threads)

    def _compiled_condition(self, tree: str | Expr, general: Callable[[int], bool]) -> BreakpointCondition:
        return ExpressionCondition(tree, general, self, self._expressions.eval_symbols, self._access.read_visible)

    # --- the live process (live.py) ---------------------------------------------------
    def subscribe(self, into: Inbox | None = None) -> Subscription:
        # Delivered from the publishing thread itself (the tracer's, mostly): no relay.
        return self._events.subscribe(into)

    @property
    def process(self) -> ProcessInfo | None:
        running = self._run.process
        if running is None and self._access.program_file is not None:  # held for its symbols, as a probe
            return ProcessInfo(0, self._access.program_file.executable(), attached=False)
        return running

    def launch(self, config: LaunchConfig) -> ProcessInfo:
        if config.symbols_only:
            held = self._access.run_on_engine(lambda: self._images.hold_program_file(config))
            if held is not None:
                return held
        self._images.drop_program_file()
        started = self._run.launch(config)
        self._quiet_thread_signals()
        return started

    def attach(self, pid: int) -> ProcessInfo:
        self._images.drop_program_file()
        attached = self._run.attach(pid)
        self._quiet_thread_signals()
        return attached

    def _quiet_thread_signals(self) -> None:
        """gdb's check_thread_signals: with the first process, glibc's own signals (32, 33:
        cancellation, setxid) become nostop noprint, whatever `handle` said before; once."""
        if self._thread_signals_quiet:
            return
        self._thread_signals_quiet = True
        for signo in (32, 33):
            self._policies[signo] = replace(self.signal_policy(signo), stop=False, print_=False)

    def detach(self) -> None:
        self._run.detach()

    def kill(self) -> None:
        self._images.drop_program_file()  # (the symbol probe of a program read from its file)
        self._run.kill()

    def close(self) -> None:
        if not self._tracer.closed:
            self._run.close()
            self._live.close()
            self._source.close()
            for _image, info in self._debug_infos.values():  # (kept from one image to the next)
                if info is not None:
                    info.sections.close()
            self._debug_infos.clear()

    def is_running(self) -> bool:
        return self._run.is_running()

    def resume(self, thread_id: int | None = None, *, jumped: int | None = None) -> None:
        self._run.resume(thread_id, jumped=jumped)

    def step_instruction(self, thread_id: int) -> None:
        self._run.step_instruction(thread_id)

    def interrupt(self) -> None:
        self._run.interrupt()

    def threads(self, *, details: bool = True) -> list[ThreadInfo]:
        return self._run.threads(details=details)

    def _forget_stop_state(self) -> None:
        """Frames and variable references describe one stop only."""
        self._frames.forget()
        self._stop_cache.forget()
        self._variables.clear()

    def _after_program_call(self) -> None:
        """A call in an expression ran the program: what was read may differ now, but the
        client's variable references stay (gdb's varobjs do): a DAP client expands them
        after a watch or console call (`twice(3)`) without listing the scopes again."""
        self._frames.forget()
        self._stop_cache.forget()
        self._variables.values_changed()

    # --- a new image or library: symbols and traps -------------------------------------
    def _new_source_symbols(self) -> None:
        self._source.close()
        self._source = self._access.source = SourceSymbols(
            self._symbols, self._index_cache, report=self._events.put, debug_infos=self._debug_infos,
            source_paths=self.source_paths,
        )
        # a new program's, with what the user gave the last one (gdb keeps it across run)
        self._variables.printers = printer_host(lambda: self._source, self._variables.printers)

    def program_architecture(self) -> Architecture:
        return self._source.arch

    def target_registers(self) -> tuple[TargetRegister, ...]:
        return self._run.target_registers()

    def read_target_register(self, thread_id: int, name: str) -> bytes:
        return self._run.read_target_register(thread_id, name)

    def set_library_paths(self, *, sysroot: str | None = None, search_path: str | None = None) -> None:
        self._images.set_library_paths(sysroot, search_path,
                                       stopped=lambda: self.process is not None and not self.is_running())

    def set_signal_policy(self, signal: int, policy: SignalPolicy) -> None:
        if not 0 < signal < 65:
            raise TargetError(f"no signal number {signal}")
        self._policies[signal] = policy

    def signal_policy(self, signal: int) -> SignalPolicy:
        return self._policies.get(signal) or default_policy(signal)

    # --- the source level (debuggers/source): frames, expressions, locations, steps ---
    def resolve_location(self, spec: str) -> list[CodeLocation]:
        return self._locations.resolve_location(spec)

    def source_position(self, address: int) -> SourcePosition | None:
        return self._locations.source_position(address)

    def source_files(self) -> list[str]:
        return self._locations.source_files()

    def source_name(self, path: str) -> str:
        return self._locations.source_name(path)

    def stack_trace(
        self, thread_id: int, start: int = 0, count: int | None = None, *, arguments: bool = False
    ) -> list[StackFrame]:
        return self._frames.stack_trace(thread_id, start, count, arguments=arguments)

    def frame_details(self, thread_id: int, level: int) -> FrameDetails:
        return self._frames.frame_details(thread_id, level)

    def frame_registers(self, thread_id: int, level: int) -> Mapping[str, int | None]:
        return self._frames.frame_registers(thread_id, level)

    def frame_variables(self, thread_id: int, level: int, scope: VariableScope, *, aggregate_values: bool = True,
                        dynamic: DynamicTypes = DynamicTypes.NONE, entry_values: bool = True) -> list[VariableInfo]:  # fmt: skip
        self._frames.asked.asked_variables((thread_id, level, scope, aggregate_values, dynamic, entry_values))
        return self._frames.frame_variables(thread_id, level, scope, aggregate_values=aggregate_values, dynamic=dynamic,
                                            entry_values=entry_values)  # fmt: skip

    def variable_children(self, reference: int, start: int = 0, count: int | None = None) -> list[VariableInfo]:
        return self._frames.variable_children(reference, start, count)

    def prepare_thread_frames(self, thread_ids: Sequence[int]) -> None:
        """ThreadFramesAhead: on the tracer thread, kept by the stop cache (Frames.prepare)."""
        self._call(lambda: self._frames.prepare(thread_ids))

    def set_print_limits(self, *, elements: int, repeats: int, addresses: bool = True,
                         array_indexes: bool = False, output_radix: int = 10,
                         input_radix: int = 10, nibbles: str = "", symbols: bool = True,
                         null_stop: bool = False, ascii: bool = False, static_members: bool = True,
                         max_depth: int = 20, unions: bool = True) -> None:
        self._expressions.set_print_limits(elements=elements, repeats=repeats, addresses=addresses,
                                           array_indexes=array_indexes, output_radix=output_radix,
                                           input_radix=input_radix, nibbles=nibbles, symbols=symbols,
                                           null_stop=null_stop, ascii=ascii, static_members=static_members,
                                           max_depth=max_depth, unions=unions)  # fmt: skip

    def evaluate(self, expression: str, thread_id: int | None = None, level: int = 0, fmt: str | None = None, *,
                 dynamic: DynamicTypes = DynamicTypes.NONE, type_only: bool = False, calls: bool = True,
                 record: bool = False) -> VariableInfo:  # fmt: skip
        return self._expressions.evaluate(expression, thread_id, level, fmt, dynamic=dynamic, type_only=type_only,
                                         calls=calls, record=record)  # fmt: skip

    def run_python(self, code: str | None, path: str | None = None, thread_id: int | None = None,
                   level: int = 0) -> ScriptOutput:  # fmt: skip
        return self._expressions.run_python(code, path, thread_id, level)

    def describe_type(self, expression: str, thread_id: int | None = None, level: int = 0, *, raw: bool = False,
                      flags: str = "") -> str:  # fmt: skip
        return self._expressions.describe_type(expression, thread_id, level, raw=raw, flags=flags)

    def printed_type_name(self, expression: str, thread_id: int | None = None, level: int = 0) -> str | None:
        return self._expressions.printed_type_name(expression, thread_id, level)

    def vtables(self, expression: str, thread_id: int, level: int = 0) -> list[VtableInfo]:
        return self._expressions.vtables(expression, thread_id, level)

    def expression_condition(self, expression: str) -> BreakpointCondition:
        return self._expressions.expression_condition(expression)

    def condition_problem(self, expression: str, address: int) -> str | None:
        return self._expressions.condition_problem(expression, address)

    def breakpoint_condition(self, condition: str | None = None, hit_condition: str | None = None,
                             log_message: str | None = None) -> BreakpointCondition:  # fmt: skip
        return self._expressions.breakpoint_condition(condition, hit_condition, log_message)

    def watch_scope(self, expression: str, thread_id: int | None = None, level: int = 0) -> WatchScope | None:
        return self._expressions.watch_scope(expression, thread_id, level)

    def insert_location_breakpoint(self, location: str, *, condition: BreakpointCondition | None = None,
                                   temporary: bool = False, enabled: bool = True) -> LocationBreakpointInfo:  # fmt: skip
        return self._locations.insert_location_breakpoint(location, condition=condition, temporary=temporary,
                                                          enabled=enabled)  # fmt: skip

    def remove_location_breakpoint(self, location_breakpoint_id: int) -> None:
        self._locations.remove_location_breakpoint(location_breakpoint_id)

    def enable_location_breakpoint(self, location_breakpoint_id: int, enabled: bool) -> None:
        self._locations.enable_location_breakpoint(location_breakpoint_id, enabled)

    def location_breakpoints(self) -> list[LocationBreakpointInfo]:
        return self._locations.location_breakpoints()

    def step(self, thread_id: int, kind: StepKind, level: int = 0) -> None:
        self._stepping.step(thread_id, kind, level)

    def run_until(self, thread_id: int, location: str, anywhere: bool = False, level: int = 0) -> None:
        self._stepping.run_until(thread_id, location, anywhere, level)

    def set_call_options(self, *, unwind_on_signal: bool | None = None, may_call: bool | None = None,
                         strict_types: bool | None = None) -> None:
        settings = self.call_settings
        if unwind_on_signal is not None:
            settings.unwind_on_signal = unwind_on_signal
        if may_call is not None:
            settings.may_call = may_call
        if strict_types is not None:
            self._expressions.strict_types = strict_types

    def set_default_source(self, source: Callable[[], str | None]) -> None:
        self._expressions.default_source = source

    def set_scheduler_locking(self, *, steps_alone: bool) -> None:
        self._stepping.steps_alone = steps_alone

    def set_step_skips(self, skips: StepSkips | None) -> None:
        self._stepping.skips = skips

    def set_backtrace_past_main(self, on: bool) -> None:
        def go() -> None:
            self._frames.set_past_main(on)
            self._stop_cache.forget()  # the variables shown with entry values or without

        self._call(go)

    def watch_expression(self, expression: str, kind: WatchKind, thread_id: int | None = None,
                         level: int = 0, *, software: bool = False) -> WatchpointInfo:  # fmt: skip
        """A hardware watchpoint on the lvalue an expression names (`x`, `p->next`, `a[3]`),
        or on what an expression that is none reads (`a + b`: watchchain.py); one that
        reads the frame's locals dies with the frame (see watchscope.py)."""
        regions, scope = self._call(lambda: self._expressions.watch_target(expression, thread_id, level))
        (address, size), *more = regions
        if not software:
            try:
                debugregs.pieces_of(regions)
                return self._user_breakpoints.insert_watchpoint(address, size, kind, scope, more=tuple(more))
            except TargetError as error:
                if kind is not WatchKind.WRITE or self._remote.connected:  # gdb's fallback: a write's
                    raise TargetError(f"cannot watch {expression!r}: {error}") from None
        return self._user_breakpoints.insert_watchpoint(address, size, kind, scope, more=tuple(more), software=True)

    def history_count(self) -> int:
        return self._dollars.history_count()

    def convenience_names(self) -> list[str]:
        return self._dollars.convenience_names()

    def set_convenience(self, name: str, number: int) -> None:
        self._dollars.set_integer(name, number)

    def set_examined(self, address: int, size: int, contents: bytes | None) -> None:
        self._dollars.set_examined(address, size, contents)

    # --- breakpoints, watchpoints, catchpoints (breakpoints.py, routing.py) --------------
    def set_catchpoint(self, kind: CatchKind, enabled: bool) -> None:
        self._user_breakpoints.set_catchpoint(kind, enabled)

    def set_catch_events(self, *, syscalls: frozenset[int] | None, signals: frozenset[int],
                         gate: Callable[[Stopped], bool] | None, libraries: bool = False) -> None:  # fmt: skip
        self._user_breakpoints.set_catch_events(syscalls=syscalls, signals=signals, gate=gate, libraries=libraries)

    def set_watch_gate(self, gate: Callable[[Stopped], bool] | None, owner: str = "") -> None:
        def judged(stop: Stopped) -> bool:
            self._access.judging_trap = True
            try:
                return all(each(stop) for each in list(self._watch_gates.values()))
            finally:
                self._access.judging_trap = False
                # what it read while the other threads ran is not the next stop's
                self._forget_stop_state()

        def go() -> None:
            if gate is None:
                self._watch_gates.pop(owner, None)
            else:
                self._watch_gates[owner] = gate
            self._watches.gate = self._remote.watches.gate = judged if self._watch_gates else None

        self._call(go)

    def insert_breakpoint(self, address: int, *, temporary: bool = False, enabled: bool = True,
                          condition: BreakpointCondition | None = None) -> BreakpointInfo:  # fmt: skip
        return self._user_breakpoints.insert_breakpoint(address, temporary=temporary, enabled=enabled, condition=condition)

    def remove_breakpoint(self, breakpoint_id: int) -> None:
        self._user_breakpoints.remove_breakpoint(breakpoint_id)

    def enable_breakpoint(self, breakpoint_id: int, enabled: bool) -> BreakpointInfo:
        return self._user_breakpoints.enable_breakpoint(breakpoint_id, enabled)

    def breakpoints(self) -> list[BreakpointInfo]:
        return self._breakpoints.breakpoints()

    def insert_watchpoint(self, address: int, size: int, kind: WatchKind, scope: WatchScope | None = None) -> WatchpointInfo:
        return self._user_breakpoints.insert_watchpoint(address, size, kind, scope)

    def remove_watchpoint(self, watchpoint_id: int) -> None:
        self._user_breakpoints.remove_watchpoint(watchpoint_id)

    def watchpoints(self) -> list[WatchpointInfo]:
        return self._user_breakpoints.watchpoints()

    # --- registers, memory, ELF symbols (state.py) --------------------------------------
    def read_registers(self, thread_id: int) -> Registers:
        return self._access.read_registers(thread_id)

    def write_register(self, thread_id: int, name: str, value: int) -> None:
        self._access.write_register(thread_id, name, value)

    def read_vector_registers(self, thread_id: int) -> VectorRegisters:
        return self._access.read_vector_registers(thread_id)

    def read_memory(self, address: int, size: int) -> bytes:
        return self._access.read_memory(address, size)

    def write_memory(self, address: int, data: bytes) -> None:
        self._access.write_memory(address, data)

    def modules(self) -> list[Module]:
        return self._access.modules()

    def lookup_address(self, address: int) -> SymbolLocation:
        return self._access.lookup_address(address)

    def section_symbol(self, address: int) -> SectionSymbol | None:
        return self._access.section_symbol(address)

    def lookup_symbol(self, name: str) -> int:
        return self._access.lookup_symbol(name)

    def backtrace(self, thread_id: int, limit: int = 256) -> list[Frame]:
        return self._access.backtrace(thread_id, limit)

    def disassemble(self, address: int, count: int, *, syntax: str = "intel") -> list[Instruction]:
        return self._access.disassemble(address, count, syntax=syntax)

    # --- core files (coretarget.py, gcore.py) ----------------------------------------
    def open_core(self, core: str, program: str | None = None) -> CoreOpened:
        self._images.drop_program_file()
        return self._cores.open_core(core, program)

    def close_core(self) -> None:
        self._cores.close_core()

    def write_core(self, path: str | None = None) -> CoreWritten:
        self._run.refuse_over_remote()
        return self._lazy.core_writer.write_core(path)

    # --- remote targets (remote/session.py, routing.py) -------------------------------
    def connect_remote(self, target: str, *, extended: bool = False, program: str | None = None,
                       timeouts: RemoteTimeouts | None = None, exec_file_mismatch: str = "ask") -> RemoteConnected:  # fmt: skip
        self._images.remote_address, self._images.exec_file_mismatch = target, exec_file_mismatch
        self._images.drop_program_file()
        return self._run.connect_remote(target, extended, program, timeouts or RemoteTimeouts(auto_retry=False))

    def disconnect_remote(self) -> None:
        self._run.disconnect_remote()

    def remote_connection(self) -> RemoteConnected | None:
        return self._remote.connection

    def monitor(self, command: str) -> str:
        return self._run.monitor(command)

    def stub_services(self) -> StubServices | None:  # info os, remote get/put/delete over a stub
        return self._remote.stub_services()

    # --- call tracing (calltrace.py) -----------------------------------------------------
    @property
    def call_recorder(self) -> CallRecorder | None:
        return self._lazy.call_recorder  # calls recorded by patches (patched_calltrace.py)

    def functions(self, named: Callable[[str], bool] | None = None) -> list[FunctionSymbol]:
        return self._lazy.call_tracer.functions(named)

    def trace_calls(self, function: FunctionSymbol, on_entry: CallEntryHook, on_exit: CallExitHook, *,
                    depth: int = 1) -> int:  # fmt: skip
        self._run.refuse_over_remote()
        return self._lazy.call_tracer.trace_calls(function, on_entry, on_exit, depth=depth)

    def untrace_calls(self, trace_id: int) -> None:
        self._lazy.call_tracer.untrace_calls(trace_id)
