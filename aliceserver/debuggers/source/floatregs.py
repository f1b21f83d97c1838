"""A stopped thread's float, vector and described registers for the frames of one request:
x87, SSE, AVX and AVX-512 by their numbers (x86_registers), aarch64's v0-v31, and the
registers only a stub's target description names, read lazily and written through the
backend's set_vector_register."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.symbols.dwarf import x86_registers
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.types import Type
from aliceserver.debuggers.targetregisters import DescribedRegisters
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from aliceserver.debuggers.source.services import EngineServices

# Registers only a target description names (SVE's z0-31, qemu's system registers) are
# numbered from here while a frame view lives (FloatRegisters.described_regno).
DESCRIBED = 0x40000
# What a backend's set_vector_register may write: the SSE, AVX and AVX-512 registers, st0-7
# and the control words FXSAVE holds as gdb shows them (the backend refuses what it cannot).
_WRITABLE = compiled_later(r"(xmm|ymm|zmm)([0-9]|[12][0-9]|3[01])|k[0-7]|st[0-7]|fctrl|fstat|fop|mxcsr")


@dataclass(slots=True)
class FloatRegisters:
    """A stopped thread's x87, SSE and AVX registers (DWARF 17-40 and the numbers of
    x86_registers), read when a location or `$name` first names one: a stop reads none,
    and the XSAVE area (ymm, AVX-512) only for those. x86-64 CFI saves none, so every frame
    of the thread sees these (gdb's unspecified rule: same value), and a write from any
    frame sets the thread's."""

    read: Callable[[], dict[int, bytes]]  # register number -> the register's bytes
    write: Callable[[str, bytes], None] | None  # (gdb name, bytes); None: cannot be written
    read_extended: Callable[[], dict[int, bytes]] | None = None  # ymm and AVX-512 (XSAVE)
    # a stub's register typed by its target description (DescribedRegisters), by name
    read_described: Callable[[str], tuple[Type, bytes] | None] | None = None
    _known: dict[int, bytes] | None = None
    _extended: dict[int, bytes] | None = None
    _described_names: list[str] = field(default_factory=list)  # by number from DESCRIBED

    def described_regno(self, name: str) -> int:
        """A number for register `name` of the description while this view lives."""
        if name not in self._described_names:
            self._described_names.append(name)
        return DESCRIBED + self._described_names.index(name)

    def _bytes(self, regno: int) -> bytes | None:
        if regno >= DESCRIBED:
            found = self.described(self._described_names[regno - DESCRIBED])
            return None if found is None else found[1]
        if self._known is None:
            self._known = self.read()
        data = self._known.get(regno)
        if data is None and self.read_extended is not None:
            if self._extended is None:
                self._extended = self.read_extended()
            data = self._extended.get(regno)
        return data

    def value(self, regno: int) -> int | None:
        data = self._bytes(regno)
        return None if data is None else int.from_bytes(data, "little")

    @property
    def has_avx512(self) -> bool:
        return self._bytes(x86_registers.K0) is not None

    @property
    def has_pkru(self) -> bool:
        return self._bytes(x86_registers.PKRU) is not None

    def described(self, name: str) -> tuple[Type, bytes] | None:
        return None if self.read_described is None else self.read_described(name)

    def set(self, regno: int, value: int) -> None:
        current = self._bytes(regno)
        if current is None or self.write is None:
            raise EvaluationError("registers of outer frames cannot be written")
        described = regno >= DESCRIBED
        name = (
            self._described_names[regno - DESCRIBED]
            if described
            else x86_registers.name_of(regno) or str(regno)
        )
        if not described and not _WRITABLE().fullmatch(name):
            raise EvaluationError(f"writing ${name} is not supported")
        data = (value & ((1 << (8 * len(current))) - 1)).to_bytes(len(current), "little")
        self.write(name, data)
        self._known, self._extended = None, None  # ymm shares xmm's bytes: read both again


def thread_float_registers(
    engine: EngineServices, thread_id: int, other: Callable[[], None], written: Callable[[], None]
) -> FloatRegisters:
    """The thread's xmm and st registers for the frames of one request, read only when a
    location names one (ptrace calls on the tracer thread). `other`: told of each read
    (not to be kept with frame 0's variables); `written`: of each write."""

    def read() -> dict[int, bytes]:
        other()
        return engine.run_on_engine(lambda: engine.target().float_registers(thread_id))

    def write(name: str, data: bytes) -> None:
        def go() -> None:
            engine.stopped_target(thread_id).set_vector_register(thread_id, name, data)
            written()

        engine.run_on_engine(go)

    def read_extended() -> dict[int, bytes]:
        other()
        return engine.run_on_engine(lambda: engine.target().extended_registers(thread_id))

    def read_described(name: str) -> tuple[Type, bytes] | None:
        other()
        target = engine.target()
        if not isinstance(target, DescribedRegisters):
            return None
        return engine.run_on_engine(lambda: target.described_register(thread_id, name))

    return FloatRegisters(read, write, read_extended, read_described)
