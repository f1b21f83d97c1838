"""Registers, memory and ELF symbols of PtraceDebugger (a mixin of engine.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, TypeVar

from aliceserver.debuggers.model import (
    Frame,
    Instruction,
    LaunchConfig,
    Module,
    Registers,
    SectionSymbol,
    SymbolLocation,
    VectorRegisters,
)
from aliceserver.debuggers.ptrace.binding import Libc
from aliceserver.debuggers.ptrace.coretarget import CoreFiles
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.process import PtraceProcess
from aliceserver.debuggers.ptrace.tracee import Tracee
from aliceserver.debuggers.ptrace.traps import TrapTable
from aliceserver.debuggers.source.frames import Frames
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
from aliceserver.debuggers.source.stopcache import StopCache
from aliceserver.debuggers.source.symbolic import address_symbol, gdb_print_name
from aliceserver.debuggers.symbols.disasm import Disassembler
from aliceserver.debuggers.symbols.dwarf.dynamic import vtable_class_name
from aliceserver.debuggers.symbols.dwarf.names import Demangler
from aliceserver.debuggers.symbols.fpunwind import fp_backtrace
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.debuggers.target import NOT_RUNNING, ProcessTarget
from aliceserver.errors import TargetError

T = TypeVar("T")


class StateAccess:
    # Provided by PtraceDebugger.
    _inferior: Inferior | None
    _traps: TrapTable
    _symbols: ProcessSymbols
    _source: SourceSymbols
    _disassembler: Disassembler
    _libc: Libc
    _frames: Frames  # a stopped thread's unwound frames, until it moves
    _stop_cache: StopCache
    _demangler: Demangler | None = None  # made on the first symbol a value shows
    _launch_config: LaunchConfig | None
    _cores: CoreFiles  # a core file debugged in place of a live process

    if TYPE_CHECKING:  # provided by the class this is mixed into
        def _call(self, fn: Callable[[], T]) -> T:
            raise NotImplementedError

        def _require(self) -> Inferior:
            raise NotImplementedError

        def _require_stopped(self) -> Inferior:
            raise NotImplementedError

    def _has_target(self) -> bool:
        return self._inferior is not None or self._cores.current is not None

    def _target(self) -> ProcessTarget:
        """The process the source level reads through: the live one, or a core file."""
        if self._inferior is not None:
            return PtraceProcess(self._inferior, self._libc)
        core = self._cores.current
        if core is not None:
            return core
        raise TargetError(NOT_RUNNING)

    def _halted_target(self) -> ProcessTarget:
        """The process with no thread running: the live one stopped, or a core."""
        if self._inferior is not None:
            return PtraceProcess(self._require_stopped(), self._libc)
        return self._target()

    def _stopped_target(self, thread_id: int) -> ProcessTarget:
        target = self._target()
        target.check_stopped(thread_id)
        return target

    def _stopped_thread(self, thread_id: int) -> tuple[Inferior, Tracee]:
        inferior = self._require()
        t = inferior.thread(thread_id)
        if t.running:
            raise TargetError(f"Thread {thread_id} is running.")
        return inferior, t

    def read_registers(self, thread_id: int) -> Registers:
        def go() -> Registers:
            return Registers(dict(self._stopped_target(thread_id).general_registers(thread_id)))

        return self._call(go)

    def write_register(self, thread_id: int, name: str, value: int) -> None:
        def go() -> None:
            self._stopped_target(thread_id).set_general_register(thread_id, name, value)
            self._frames.forget_thread(thread_id)  # a new pc or stack pointer: unwind again
            self._stop_cache.values_changed()

        self._call(go)

    def read_vector_registers(self, thread_id: int) -> VectorRegisters:
        def go() -> VectorRegisters:
            return self._stopped_target(thread_id).vector_registers(thread_id)

        return self._call(go)

    def _link_view(self) -> Module | None:
        """The PIE main program of a process held for its symbols (LaunchConfig.symbols_only),
        which shows at its link-time addresses; None otherwise."""
        config = self._launch_config
        if config is None or not config.symbols_only or self._inferior is None:  # never a core
            return None
        main = next((module for module in self._symbols.modules() if module.is_main), None)
        return main if main is not None and main.base else None

    def _runtime_address(self, address: int) -> int:
        """Where a link-time address of the held program's image is loaded (a link-time
        range is never mapped: a PIE is loaded far above it); any other address as is."""
        main = self._link_view()
        if main is not None and main.low - main.base <= address < main.high - main.base:
            return address + main.base
        return address

    def _read_raw(self, address: int, size: int) -> bytes:
        """Memory as it is, traps included (used on the tracer thread by the symbol readers)."""
        target = self._target()
        address = self._runtime_address(address)
        try:
            return target.read_memory(address, size)
        except (OSError, OverflowError):
            raise TargetError(f"Cannot access memory at address {address:#x}") from None

    def _read_visible(self, address: int, size: int) -> bytes:
        address = self._runtime_address(address)
        return self._traps.mask(address, self._read_raw(address, size))

    def read_memory(self, address: int, size: int) -> bytes:
        if size < 0 or size > 1 << 28:
            raise TargetError(f"cannot read {size} bytes at once")
        return self._call(lambda: self._read_visible(address, size))

    def write_memory(self, address: int, data: bytes) -> None:
        self._call(lambda: self._write_visible(address, data))

    def _write_visible(self, address: int, data: bytes) -> None:
        """Write as the program would see it: our int3 bytes stay, their originals change."""
        target = self._target()
        patched = bytearray(data)
        for trap in self._traps.by_address.values():
            offset = trap.address - address
            if trap.inserted and 0 <= offset < len(data):
                trap.original = bytes([data[offset]])
                patched[offset] = 0xCC
        self._stop_cache.values_changed()
        try:
            target.write_memory(address, bytes(patched))
        except (OSError, OverflowError):
            raise TargetError(f"Cannot access memory at address {address:#x}") from None

    # --- symbols --------------------------------------------------------------------
    def modules(self) -> list[Module]:
        # the mapped ones, their symbols read or not (nosharedlibrary)
        return self._call(lambda: self._symbols.mapped_modules() if self._has_target() else [])

    def lookup_address(self, address: int) -> SymbolLocation:
        """The symbol x/a and disassembly show (linkage names: gdb's `asm-demangle off`)."""
        return self._call(lambda: address_symbol(self._source, self._runtime_address(address), None))

    def section_symbol(self, address: int) -> SectionSymbol | None:
        def go() -> SectionSymbol | None:
            runtime = self._runtime_address(address)
            module = self._symbols.module_at(runtime)
            if module is None:
                return None
            # gdb's minimal symbols: the image's and its debug file's (local names a stripped
            # library dropped); the nearer one names the address.
            images = (self._symbols.image_of(module.path), self._source.debug_image(module))
            hits = [hit for image in images if image is not None
                    and (hit := image.section_symbol(runtime - module.base)) is not None]  # fmt: skip
            if not hits:
                return None
            symbol, offset, section = min(hits, key=lambda hit: hit[1])
            name, several = symbol.name, len(self._symbols.modules()) > 1
            if self._demangler is None:
                self._demangler = Demangler()
            demangled = self._demangler.demangle(name)  # gdb's print name, as values show it
            shown = demangled if demangled != name else gdb_print_name(name)
            return SectionSymbol(shown, offset, section, module.path, several)

        return self._call(go)

    def lookup_symbol(self, name: str) -> int:
        def go() -> int:
            address = self._symbols.lookup_name(name)
            if address is None:
                raise TargetError(f'No symbol "{name}" in current context.')
            return address

        return self._call(go)

    def backtrace(self, thread_id: int, limit: int = 256) -> list[Frame]:
        def go() -> list[Frame]:
            regs = self._stopped_target(thread_id).general_registers(thread_id)
            return fp_backtrace(
                self._read_visible, regs["rip"], regs["rsp"], regs["rbp"], self._symbols.lookup_address, limit
            )

        return self._call(go)

    def _symbolize(self, address: int, demangle: bool = True) -> str | None:
        """`<vtable for geo::Rect+16>`: values show symbols demangled, as gdb (`set print
        demangle on`); /a and disassembly keep them mangled (gdb's `asm-demangle off`)."""
        if self._demangler is None:
            self._demangler = Demangler()
        where = address_symbol(self._source, self._runtime_address(address),
                               self._demangler.demangle if demangle else None)
        if where.name is None:
            return None
        return where.name if where.offset == 0 else f"{where.name}{where.offset:+d}"

    def _vtable_class(self, address: int) -> str | None:
        """`geo::Rect` when `address` is inside `vtable for geo::Rect` (dynamic types)."""
        where = self._symbols.lookup_address(address)
        if where.name is None or not where.name.startswith("_ZTV"):
            return None
        if self._demangler is None:
            self._demangler = Demangler()
        return vtable_class_name(self._demangler.demangle(where.name))

    def disassemble(self, address: int, count: int, *, syntax: str = "intel") -> list[Instruction]:
        def go() -> list[Instruction]:
            code = b""
            size = max(count, 1) * 15
            while size > 0 and not code:
                try:
                    code = self._read_visible(address, size)
                except TargetError:
                    if size <= 1:
                        raise
                    size //= 2  # the range runs off the mapping: take what is there
            return self._disassembler.disassemble(
                code, address, count, syntax=syntax,
                resolve=lambda target: address_symbol(self._source, self._runtime_address(target), None),
            )

        return self._call(go)
