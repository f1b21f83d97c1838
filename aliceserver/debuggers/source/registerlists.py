"""Many registers of one frame at once, for the front ends that list them as gdb does
(-data-list-register-values, -data-list-changed-registers): each `$name` is evaluated as
print evaluates it, but in one call on the engine's thread over one frame view, so that a
stop's register sets are read once (not once per register) and nothing is parsed twice."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from aliceserver.debuggers.model import VariableInfo
from aliceserver.debuggers.source.variables import evaluate
from aliceserver.debuggers.symbols.dwarf import x86_registers
from aliceserver.debuggers.symbols.dwarf.types import ArrayType, StructType, strip, type_name
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.debuggers.source.dollars import SessionDollars
    from aliceserver.debuggers.source.evaluation import Expressions
    from aliceserver.debuggers.source.frames import Frames
    from aliceserver.debuggers.source.services import EngineServices
    from aliceserver.debuggers.source.variables import FrameView, VariableStore
    from aliceserver.debuggers.symbols.dwarf.expr.ast import Expr

_MEMO_LIMIT = 8192  # descriptions kept, about 30 stops' worth of distinct registers


class RegisterLists:
    """Registers by name in frame `level` of a thread: their raw contents (what gdb's
    register cache holds: a pseudo register's own bytes) or their values as print shows
    them."""

    def __init__(self, engine: EngineServices, frames: Frames, expressions: Expressions, values: VariableStore,
                 dollars: SessionDollars) -> None:  # fmt: skip
        self._engine = engine
        self._frames = frames
        self._expressions = expressions
        self._values = values
        self._dollars = dollars
        self._trees: dict[str, Expr] = {}  # `$name` parsed once
        # (name, AVX-512): an x86 register's number, first byte, size and its number's size
        self._places: dict[tuple[str, bool], tuple[int, int, int, int]] = {}
        self._memo: dict[tuple[object, ...], VariableInfo] = {}
        self._memo_target: object = None
        self._kinds: dict[str, tuple[object, str]] = {}  # each register's type, as the memo keys it

    def _tree(self, name: str) -> Expr:
        tree = self._trees.get(name)
        if tree is None:  # (the parser imported here: not every session lists registers)
            from aliceserver.debuggers.symbols.dwarf.expr import parse_expression

            tree = self._trees[name] = parse_expression(f"${name}")
        return tree

    def _each(
        self, thread_id: int | None, level: int, names: Sequence[str]
    ) -> list[Value | AliceError]:
        """On the engine's thread: each register's value, or why it has none."""
        tid = self._frames.default_thread(thread_id)
        symbols = self._expressions.eval_symbols(tid, level)
        dollars = self._dollars.values(tid)
        found: list[Value | AliceError] = []
        for name in names:
            try:
                found.append(evaluate(self._tree(name), symbols, values=dollars))
            except AliceError as error:
                found.append(error)
        return found

    def contents(
        self, thread_id: int | None, level: int, names: Sequence[str]
    ) -> list[bytes | None]:
        """Each register's bytes; None where the frame has no value for it (not saved,
        unavailable), which compares equal only to another None."""

        def go() -> list[bytes | None]:
            tid = self._frames.default_thread(thread_id)
            view = self._frames.frame_view(tid, level)[0]  # no scope: names are not looked up
            if view.frame.arch.name == "aarch64":  # its own registers: through the evaluator
                return [_bytes_of(value) for value in self._each(thread_id, level, names)]
            avx512 = view.has_avx512
            return [self._x86_contents(view, name, avx512) for name in names]

        return self._engine.run_on_engine(go)

    def _x86_contents(
        self, view: FrameView, name: str, avx512: bool, *, as_print: bool = False
    ) -> bytes | None:
        """Register `name` where `$name` reads it, without making its type (a vector
        union's is most of the cost). $eax... of an outer frame are its own rax's bytes,
        as gdb's register cache of the frame holds them, or (`as_print`) frame 0's, as
        `$eax` itself reads them in gdb 13."""
        where = self._places.get((name, avx512))
        if where is None:
            spec = x86_registers.lookup(name, lambda: avx512, lambda: True)  # no pkru: no bytes
            if spec is None:
                return None
            size = strip(spec.make()).size
            where = self._places[(name, avx512)] = (
                spec.regno,
                spec.offset,
                size,
                max(spec.offset + size, 8),
            )
        regno, offset, size, width = where
        if as_print and offset + size < 8 and x86_registers.is_pseudo(name):
            view = view.innermost()
        value = view.register(regno)
        if value is None and not view.not_saved(regno):
            value = view.innermost().register(regno)  # unsaved here: gdb's same value
        if value is None:
            return None
        return (value & ((1 << 8 * width) - 1)).to_bytes(width, "little")[offset : offset + size]

    def values(
        self, thread_id: int | None, level: int, names: Sequence[str], fmt: str | None
    ) -> list[VariableInfo]:
        """Each register as print/FMT shows it (`fmt` None: natural); AliceError as the
        first register that cannot be evaluated fails, as print of it would. A register
        described before with the same type and bytes is not evaluated again."""

        def go() -> list[VariableInfo]:
            frame: list[tuple[FrameView, bool | None]] = []  # the frame, and AVX-512 (x86) or None

            def where() -> tuple[FrameView, bool | None]:
                if not frame:
                    view = self._frames.frame_view(self._frames.default_thread(thread_id), level)[0]
                    frame.append(
                        (view, None if view.frame.arch.name == "aarch64" else view.has_avx512)
                    )
                return frame[0]

            shown: list[VariableInfo | None] = [None] * len(names)
            for index, name in enumerate(names):
                key = self._known_key(where, name, fmt)
                found = None if key is None else self._memo.get(key)
                if found is not None:
                    shown[index] = (
                        found if found.name == f"${name}" else replace(found, name=f"${name}")
                    )
            missing = [index for index, info in enumerate(shown) if info is None]
            evaluated = self._each(thread_id, level, [names[index] for index in missing])
            for index, value in zip(missing, evaluated, strict=True):
                if isinstance(value, AliceError):
                    raise value
                shown[index] = self._described(names[index], value, fmt)
            return [info for info in shown if info is not None]

        return self._engine.run_on_engine(go)

    def _known_key(
        self, where: Callable[[], tuple[FrameView, bool | None]], name: str, fmt: str | None
    ) -> tuple[object, ...] | None:
        """The memo's key of `$name` from its bytes alone, where its type is known from an
        earlier description (x86: its bytes are read without the evaluator)."""
        kind = self._kinds.get(name)
        if kind is None or not self._memo_usable():
            return None
        view, avx512 = where()
        data = None if avx512 is None else self._x86_contents(view, name, avx512, as_print=True)
        return None if data is None else (*kind, data, fmt, self._settings())

    def _memo_usable(self) -> bool:
        store = self._values
        if store.printers is not None and store.printers.started:
            return False  # a printer may show these types
        target = (self._engine.process, type(self._engine.target()))  # a new process or connection
        if target != self._memo_target or len(self._memo) > _MEMO_LIMIT:
            self._memo, self._kinds, self._memo_target = {}, {}, target
        return True

    def _settings(self) -> tuple[object, ...]:
        store = self._values
        return (
            store.max_elements,
            store.repeat_threshold,
            store.addresses,
            store.array_indexes,
            store.output_format,
        )

    def _described(self, name: str, value: Value, fmt: str | None) -> VariableInfo:
        """`$name` described, or as described before with the same type, bytes and print
        settings (most registers are unchanged from one stop to the next, or zero)."""
        store = self._values
        try:
            data = value.data()
        except AliceError:
            return store.describe(f"${name}", value, fmt, top=True)
        if not self._memo_usable():
            return store.describe(f"${name}", _detached(value, data), fmt, top=True)
        # not by name: the zero zmm16-31 print alike (only `name` of the description differs)
        kind = self._kinds[name] = (type(value.type), type_name(value.type))
        key = (*kind, data, fmt, self._settings())
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = store.describe(
                f"${name}", _detached(value, data), fmt, top=True
            )
        return found if found.name == f"${name}" else replace(found, name=f"${name}")


def _detached(value: Value, data: bytes) -> Value:
    """A vector register's bytes as a value of its own, whose lanes are sliced from them:
    each lane of a register value reads the whole register again (a zmm's 64 bytes for
    each of its 200-odd lanes, as one union prints them)."""
    if not isinstance(strip(value.type), (StructType, ArrayType)):
        return value
    return Value.of_bytes(value.type, data, value.ctx)


def _bytes_of(value: Value | AliceError) -> bytes | None:
    try:
        return None if isinstance(value, AliceError) else value.data()
    except AliceError:
        return None
