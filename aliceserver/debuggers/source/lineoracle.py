"""The LineOracle a source-line step plan (stepping.py) consults: line rows, function
ranges, calls and inlined calls, over the engine's source symbols and its memory."""

from __future__ import annotations

import logging
import os

from aliceserver.debuggers.source.frames import Frames
from aliceserver.debuggers.source.inlinestops import InlineCall
from aliceserver.debuggers.source.services import EngineServices
from aliceserver.debuggers.source.stepping import LineRow
from aliceserver.debuggers.source.stopcache import StopCache
from aliceserver.debuggers.symbols.disasm import Disassembler
from aliceserver.errors import AliceError, TargetError

log = logging.getLogger(__name__)

# A run of instructions that just fall through is run to its end with one trap, not
# single-stepped, when it is at least this long (a trap costs about two steps).
_STRAIGHT_RUN_WORTH = 3
_STRAIGHT_RUN_BYTES = 4096


class LineOracle:
    """The LineOracle a step plan consults, over the engine's source symbols."""

    def __init__(
        self, engine: EngineServices, frames: Frames, stop_cache: StopCache, disassembler: Disassembler,
        thread_id: int,
    ) -> None:  # fmt: skip
        self._engine = engine
        self._frames = frames
        self._stop_cache = stop_cache
        self._disassembler = disassembler
        self._tid = thread_id

    def line_row(self, pc: int) -> LineRow | None:
        found = self._engine.source_symbols.line_row(pc)
        if found is None:
            return None
        start, end, where, is_stmt = found
        return LineRow(start, end, (where.path, where.line), is_stmt)

    def function_range(self, pc: int) -> tuple[int, int, int] | None:
        return self._engine.source_symbols.function_range(pc)

    def call_length(self, pc: int) -> int | None:
        try:
            code = self._engine.read_visible(pc, 16)
        except TargetError:
            return None
        return self._stop_cache.call_length(code, self._decode_call)

    def straight_run_end(self, pc: int, limit: int) -> int | None:
        if not 0 < limit - pc <= _STRAIGHT_RUN_BYTES:
            return None
        try:
            code = self._engine.read_visible(pc, limit - pc)
        except TargetError:
            return None
        offset, count = self._stop_cache.straight_run(code, self._disassembler.straight_run)
        # A breakpoint inside the run is hit on the way, as a single step onto it would be.
        return pc + offset if count >= _STRAIGHT_RUN_WORTH else None

    def _decode_call(self, code: bytes) -> int | None:
        decoded = self._disassembler.disassemble(code, 0, 1)  # lengths need no address
        if decoded and decoded[0].mnemonic.startswith("call"):
            return decoded[0].size
        return None

    def has_name(self, pc: int) -> bool:
        return self._engine.source_symbols.symbols.lookup_address(pc).name is not None

    def is_trampoline(self, pc: int) -> bool:
        symbols = self._engine.source_symbols.symbols
        name = symbols.lookup_address(pc).name
        if name is None:  # PLT0, the lazy-binding entry: unnamed, just before the first stub
            name = symbols.lookup_address((pc & ~0xF) + 16).name
            if name is not None and name.endswith("@plt"):
                return True
        elif name.endswith("@plt"):
            return True
        module = symbols.module_at(pc)
        return module is not None and os.path.basename(module.path).startswith("ld-linux")

    def is_signal_trampoline(self, pc: int) -> bool:
        return self._engine.source_symbols.arch.is_signal_trampoline(self._engine.read_visible, pc)

    def inline_calls(self, pc: int) -> tuple[InlineCall, ...]:
        return self._frames.inline_calls(pc)

    def show_inline(self, tid: int, hidden: int) -> None:
        self._frames.show_inline(tid, hidden)

    def position(self, pc: int) -> tuple[str, int] | None:
        where = self._engine.source_symbols.position(pc)
        return None if where is None else (where.path, where.line)

    def caller(self, tid: int) -> tuple[int, int] | None:
        frames = self._frames.caller_frames(tid)
        if len(frames) < 2 or frames[0].cfa is None:
            return None
        return frames[1].pc, frames[0].cfa

    def frame_cfa(self, tid: int) -> int | None:
        live = self._engine.stopped_target(tid).general_registers(tid)
        try:
            return self._engine.source_symbols.innermost(live, self._engine.read_visible).cfa
        except (AliceError, ValueError) as error:  # no CFI there, unreadable stack
            log.debug("no CFA for thread %d: %s", tid, error)
            return None

