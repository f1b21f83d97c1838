"""Expression conditions of breakpoints: compiled once per breakpoint address, with the
general evaluator behind them.

A condition false at every hit is the common case (`i == 99999` on a loop body), so its
cost per hit matters: the general evaluator builds a frame, walks the scope and makes Value
objects each time (about 70 us); a closure compiled for the hit's pc (symbols/dwarf/expr/
compiled.py) reads the variable and compares (a few us). What it does not cover, and any
hit where it raises, goes to the general evaluator, which gives the answer or the error
(an error stops the program, as in gdb).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol

from aliceserver.debuggers.events import Output
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.model import Module
from aliceserver.debuggers.ptrace.binding import REGISTER_NAMES, UserRegs
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
from aliceserver.debuggers.symbols.dwarf.unwind import DWARF_REGISTERS
from aliceserver.errors import AliceError, TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.tracee import Tracee
    from aliceserver.debuggers.source.variables import ProcessEvalSymbols
    from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir
    from aliceserver.debuggers.symbols.dwarf.expr.ast import Expr
    from aliceserver.debuggers.symbols.dwarf.expr.compiled import PcFrame

log = logging.getLogger(__name__)


# The condition compiler (expr/compiled.py) imports the evaluator, which a session without
# conditions never runs: imported at the first condition compiled.
def _pc_frame(*args: Any) -> PcFrame:
    from aliceserver.debuggers.symbols.dwarf.expr.compiled import PcFrame

    return PcFrame(*args)


def compile_condition(tree: Expr, frame: PcFrame) -> Callable[[Any], bool] | None:
    from aliceserver.debuggers.symbols.dwarf.expr import compiled

    return compiled.compile_condition(tree, frame)


def analyse_condition(tree: Expr, frame: PcFrame) -> ir.Node | None:
    from aliceserver.debuggers.symbols.dwarf.expr import compiled

    return compiled.analyse_condition(tree, frame)


class ConditionEngine(Protocol):
    """What a condition needs of the engine (tracer thread only)."""

    _source: SourceSymbols
    _events: EventSource

    def _stopped_thread(self, thread_id: int) -> tuple[Inferior, Tracee]: ...

    def _forget_stop_state(self) -> None: ...


class EvalSymbolsAt(Protocol):
    """The source level's symbols of a thread's frame (source/evaluation.py)."""

    def __call__(self, thread_id: int, level: int, *, innermost_only: bool = False) -> ProcessEvalSymbols: ...


@dataclass(frozen=True, slots=True)
class _Compiled:
    module: Module  # the module instance it was compiled for: a reload or re-run is another
    run: Callable[[Any], bool] | None  # None: not covered here
    node: ir.Node | None = None  # its IR, for a jump patch's machine code (patches/codegen.py)


class ExpressionCondition:
    """A BreakpointCondition (called with the hit thread's id). `compiled` and `general`
    count the hits each path judged."""

    def __init__(
        self, tree: str | Expr, general: Callable[[int], bool], engine: ConditionEngine, eval_symbols: EvalSymbolsAt,
        read_visible: Callable[[int, int], bytes],
    ) -> None:
        self._tree = tree  # text: a cast to a typedef, parsed per frame by the general path
        self._general = general
        self._engine = engine
        self._eval_symbols = eval_symbols
        self._read_visible = read_visible
        self._by_pc: dict[int, _Compiled] = {}
        self._source: SourceSymbols | None = None  # the image _by_pc was compiled for
        self.compiled = 0
        self.general = 0

    def __call__(self, tid: int) -> bool:
        stopped = self._ptrace_thread(tid)  # None over a stub: the general path judges
        if not isinstance(self._tree, str) and stopped is not None:
            inferior, t = stopped
            regs = inferior.regs(t)
            run = self._compiled_at(tid, int(regs.rip))
            if run is not None:
                try:
                    result = run(regs)
                except Exception as error:  # the general path judges this hit
                    log.debug("compiled condition: %s", error)
                else:
                    self.compiled += 1
                    return result
        self.general += 1
        try:
            held = self._general(tid)
        except AliceError as error:  # the breakpoint stops; gdb says why first
            # the engine's events: the live process's, or the stub's (no ptrace thread then)
            self._engine._events.put(Output("console", f"Error in testing breakpoint condition:\n{error}\n"))
            raise
        if not held:  # it resumes: the frames the test unwound ($_caller_is) are not the next stop's
            self._engine._forget_stop_state()
        return held

    def _ptrace_thread(self, tid: int) -> tuple[Inferior, Tracee] | None:
        try:
            return self._engine._stopped_thread(tid)
        except TargetError:
            return None

    def _compiled_at(self, tid: int, pc: int) -> Callable[[UserRegs], bool] | None:
        source = self._engine._source
        if source is not self._source:  # an exec or a new process: new symbols, new code
            self._by_pc.clear()  # (and the old image's symbols are not kept alive)
            self._source = source
        module = source.symbols.module_at(pc)
        if module is None:
            return None
        known = self._by_pc.get(pc)
        if known is None or known.module is not module:
            known = self._compile(tid, pc, module, source)
            self._by_pc[pc] = known
        return known.run

    def prepare(self, tid: int, pc: int) -> None:
        """Compiled at `pc` from thread `tid`'s frame there, nothing judged (a logpoint's
        values, which a jump patch computes in the program)."""
        if not isinstance(self._tree, str):
            self._compiled_at(tid, pc)

    def machine_ir(self, pc: int) -> tuple[bool, ir.Node | None]:
        """(whether the condition was compiled at `pc` yet, its IR there or None): what a
        jump patch there would judge in the program (ptrace/patched_breakpoints.py)."""
        known, source = self._by_pc.get(pc), self._engine._source
        if known is None or self._source is not source or known.module is not source.symbols.module_at(pc):
            return False, None  # (another run may load the module elsewhere: compiled anew)
        return True, known.node

    def _compile(self, tid: int, pc: int, module: Module, source: SourceSymbols) -> _Compiled:
        assert not isinstance(self._tree, str)
        try:
            frame = self._eval_symbols(tid, 0, innermost_only=True).frame_symbols
            if frame is None:
                return _Compiled(module, None)
            pc_frame = _pc_frame(frame, _cfa_rule(source, module, pc), REGISTER_NAMES, self._read_visible)
            run = compile_condition(self._tree, pc_frame)
            node = analyse_condition(self._tree, pc_frame) if run is not None else None
            return _Compiled(module, run, node)
        except AliceError as error:
            log.debug("condition not compiled at %#x: %s", pc, error)
        except Exception:  # a bug here must not stop the program: the general path serves
            log.exception("compiling a condition at %#x", pc)
        return _Compiled(module, None)


def _cfa_rule(source: SourceSymbols, module: Module, pc: int) -> tuple[str, int] | None:
    """The CFA as register + offset at `pc`, as SourceSymbols.innermost finds it."""
    table = source.cfi(module)
    row = table.row_at(pc - module.base) if table is not None else None
    if row is None or row.cfa.expression is not None:
        return None
    name = DWARF_REGISTERS.get(row.cfa.register)
    return None if name is None else (name, row.cfa.offset)
