"""The process as the engine and the source level read it (an object the engine composes):
registers, memory with the debugger's traps masked, ELF symbols, disassembly; the live
process or a core file in its place. It is the EngineServices (source/services.py) the
source level's objects are built with; the engine keeps `inferior`, `source` and
`launch_config` up to date, so reading them costs no call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, TypeVar

from aliceserver.debuggers.model import (
    Frame,
    Instruction,
    LaunchConfig,
    Module,
    ProcessInfo,
    Registers,
    SectionSymbol,
    SymbolLocation,
    VectorRegisters,
)
from aliceserver.debuggers.ptrace.binding import Libc
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.patches.install import PatchTable
from aliceserver.debuggers.ptrace.process import PtraceProcess
from aliceserver.debuggers.ptrace.tracee import Run
from aliceserver.debuggers.ptrace.traps import TrapTable
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
from aliceserver.debuggers.source.stopcache import StopCache
from aliceserver.debuggers.source.symbolic import address_symbol, gdb_print_name
from aliceserver.debuggers.symbols.disasm import Disassembler
from aliceserver.debuggers.symbols.dwarf.dynamic import vtable_class_name
from aliceserver.debuggers.symbols.dwarf.names import Demangler, natural_name
from aliceserver.debuggers.symbols.elfheaders import SHF_ALLOC, SHF_TLS
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.debuggers.target import NOT_RUNNING, ProcessTarget, write_general_register
from aliceserver.errors import AliceError, TargetError

if TYPE_CHECKING:  # the core reader is imported when a core is opened
    from aliceserver.debuggers.core.process import CoreProcess

T = TypeVar("T")
_MAX_NAMES = 4096  # symbolize's answers kept; all are dropped when there are more


class RunOnEngine(Protocol):
    def __call__(self, fn: Callable[[], T]) -> T: ...


class ProcessAccess:
    def __init__(
        self, call: RunOnEngine, *, core: Callable[[], CoreProcess | None], traps: TrapTable,
        symbols: ProcessSymbols, source: SourceSymbols, disassembler: Disassembler, libc: Libc,
        stop_cache: StopCache, forget_thread: Callable[[int, bool], None], forget_stop_state: Callable[[], None],
        process: Callable[[], ProcessInfo | None], remote: Callable[[], ProcessTarget | None] = lambda: None,
    ) -> None:  # fmt: skip
        self._call = call
        self._core = core  # a core file debugged in place of a live process
        self._remote = remote  # a process behind a stub (remote/session.py), when connected
        self._traps = traps
        self.patches = PatchTable()  # jump patches: reads show their original bytes too
        self._symbols = symbols
        self._disassembler = disassembler
        self._libc = libc
        self._stop_cache = stop_cache
        self._forget_thread = forget_thread  # its unwound frames, after its registers change
        self.forget_stop_state = forget_stop_state
        self._process = process
        self._demangler: Demangler | None = None  # made on the first symbol a value shows
        # symbolize's answers by (runtime address, demangled), for the modules and symbols of
        # _named_with: each stop's pointers name the same addresses again
        self._names: dict[tuple[int, bool], str | None] = {}
        self._section_spans: tuple[object, list[tuple[int, int]]] | None = None  # program_gap's
        self._named_with: tuple[object, int] | None = None
        # Kept up to date by the engine:
        self.inferior: Inferior | None = None  # the live process
        self.source = source  # the program's symbols (a new SourceSymbols at each image)
        self.launch_config: LaunchConfig | None = None
        # The program's file alone, before a run, where it cannot be started here for its
        # symbols (ptrace/programfile.py)
        self.program_file: ProcessTarget | None = None
        # A front end's watch gate judging a trap (engine.set_watch_gate): the program runs,
        # the trapped thread is stopped, and reads of it are the gate's to make.
        self.judging_trap = False

    # --- EngineServices ---------------------------------------------------------------
    def run_on_engine(self, fn: Callable[[], T]) -> T:
        return self._call(fn)

    @property
    def source_symbols(self) -> SourceSymbols:
        return self.source

    @property
    def process(self) -> ProcessInfo | None:
        return self._process()

    def require(self) -> Inferior:
        if self.inferior is None:
            raise TargetError(NOT_RUNNING)
        return self.inferior

    def require_stopped(self) -> Inferior:
        inferior = self.require()
        if inferior.run is Run.RUNNING:
            raise TargetError("The program is running; interrupt it first.")
        return inferior

    def has_target(self) -> bool:
        return (self.inferior is not None or self._core() is not None or self._remote() is not None
                or self.program_file is not None)  # fmt: skip

    def target(self) -> ProcessTarget:
        """The process the source level reads through: the live one, a core file, or the
        one a stub debugs."""
        if self.inferior is not None:
            return PtraceProcess(self.inferior, self._libc)
        core = self._core()
        if core is not None:
            return core
        remote = self._remote()
        if remote is not None:
            return remote
        if self.program_file is not None:
            return self.program_file
        raise TargetError(NOT_RUNNING)

    def halted_target(self) -> ProcessTarget:
        """The process with no thread running: the live one stopped, or a core."""
        if self.inferior is not None:
            held = self.inferior if self.judging_trap else self.require_stopped()
            return PtraceProcess(held, self._libc)
        return self.target()

    def stopped_target(self, thread_id: int) -> ProcessTarget:
        target = self.target()
        target.check_stopped(thread_id)
        return target

    def read_registers(self, thread_id: int) -> Registers:
        known = self._stop_cache.known_registers(thread_id)  # on the caller's thread: see StopCache
        if known is not None:
            return Registers(known)

        def go() -> Registers:
            values = dict(self.stopped_target(thread_id).general_registers(thread_id))
            self._stop_cache.remember_registers(thread_id, values)
            return Registers(dict(values))

        return self._call(go)

    def write_register(self, thread_id: int, name: str, value: int) -> None:
        def go() -> None:
            target = self.stopped_target(thread_id)
            moved = write_general_register(target, thread_id, name, value, self.source.arch.pc)
            self._forget_thread(thread_id, moved)  # a new pc or stack pointer: unwind again
            self._stop_cache.values_changed()

        self._call(go)

    def read_vector_registers(self, thread_id: int) -> VectorRegisters:
        def go() -> VectorRegisters:
            return self.stopped_target(thread_id).vector_registers(thread_id)

        return self._call(go)

    def link_view(self) -> Module | None:
        """The PIE main program of a process held for its symbols (LaunchConfig.symbols_only),
        which shows at its link-time addresses; None otherwise."""
        config = self.launch_config
        if config is None or not config.symbols_only or config.relocated or self.inferior is None:  # never a core
            return None
        main = next((module for module in self._symbols.modules() if module.is_main), None)
        return main if main is not None and main.base else None

    def program_only(self) -> bool:
        """A process held for its symbols before any run: gdb has read the program's
        symbols alone then (ours: its loader's too)."""
        config = self.launch_config
        return config is not None and config.symbols_only and not config.relocated

    def held_for_symbols(self) -> bool:
        """A process held for its symbols, before a run or after one ended: gdb has no
        frame then (the held one's, in the loader, is none of the user's)."""
        config = self.launch_config
        return config is not None and config.symbols_only

    def hidden(self, address: int) -> bool:
        """Before run, an address outside the program's image: gdb has read its file alone,
        so it has no symbol or memory there (the held process's loader and stack are none
        of the user's). The image is seen at its link-time addresses and, as the places
        found for it are, at the held copy's."""
        if not self.program_only():
            return False
        main = next((module for module in self._symbols.modules() if module.is_main), None)
        if main is None:
            return True
        link = address + main.base  # (a link-time address's runtime one)
        return not (main.low <= address < main.high or main.low <= link < main.high)

    def program_gap(self, address: int, size: int) -> int | None:
        """Before run, the first address of [address, address + size) outside the program's
        allocated sections: gdb reads its file's sections alone (not the ELF header nor the
        gaps between them, which the held copy maps), seen at link-time addresses or the
        held copy's. None where all of it is there, or after a start."""
        if not self.program_only():
            return None
        main = next((module for module in self._symbols.modules() if module.is_main), None)
        image = self._symbols.image_of(main.path) if main is not None else None
        if main is None or image is None:
            return address
        shift = main.base if main.low <= address < main.high else 0
        held = self._section_spans
        if held is None or held[0] is not image:  # (a program read anew: its own)
            held = self._section_spans = (image, sorted((s.addr, s.addr + s.size) for s in image.sections
                                                        if s.flags & SHF_ALLOC and not s.flags & SHF_TLS and s.size))  # fmt: skip
        spans = held[1]
        at, end = address, address + max(size, 1)
        for low, high in spans:
            if low + shift <= at < high + shift:
                at = high + shift
                if at >= end:
                    return None
        return at

    def runtime_address(self, address: int) -> int:
        """Where a link-time address of the held program's image is loaded (a link-time
        range is never mapped: a PIE is loaded far above it); any other address as is."""
        main = self.link_view()
        if main is not None and main.low - main.base <= address < main.high - main.base:
            return address + main.base
        return address

    def read_raw(self, address: int, size: int) -> bytes:
        """Memory as it is, traps included (used on the tracer thread by the symbol readers)."""
        target = self.target()
        address = self.runtime_address(address)
        try:
            return target.read_memory(address, size)
        except (OSError, OverflowError):
            kept = self._kept_bytes(address, size)
            if kept is None:
                raise TargetError(f"Cannot access memory at address {_first_unreadable(target, address, size):#x}") from None
            return kept

    def kept_library_at(self, address: int) -> Module | None:
        """A probe after a run: the library of the ended run holding `address`, whose
        symbols gdb keeps (LaunchConfig.kept_libraries); nothing is mapped there."""
        config = self.launch_config
        if config is None or not config.symbols_only or not config.kept_libraries:
            return None
        module = self._symbols.module_at(address)
        if module is None or module.is_main or (module.path, module.base) not in config.kept_libraries:
            return None
        return module

    def _kept_bytes(self, address: int, size: int) -> bytes | None:
        """A kept library's bytes, read from its file as gdb reads its sections (kept_files.py)."""
        module = self.kept_library_at(address)
        image = self._symbols.image_of(module.path) if module is not None else None
        if module is None or image is None:
            return None
        from aliceserver.debuggers.ptrace.kept_files import file_bytes

        return file_bytes(image, address - module.base, size)

    def read_visible(self, address: int, size: int) -> bytes:
        address = self.runtime_address(address)
        return self.patches.mask(address, self._traps.mask(address, self.read_raw(address, size)))

    def read_memory(self, address: int, size: int) -> bytes:
        if size < 0 or size > 1 << 28:
            raise TargetError(f"cannot read {size} bytes at once")

        def go() -> bytes:
            gap = self.program_gap(address, size)
            if gap is not None:
                raise TargetError(f"Cannot access memory at address {gap:#x}")
            return self.read_visible(address, size)

        return self._call(go)

    def write_memory(self, address: int, data: bytes) -> None:
        self._call(lambda: self.write_visible(address, data))

    def write_visible(self, address: int, data: bytes) -> None:
        """Write as the program would see it: our int3 bytes stay, their originals change."""
        config = self.launch_config
        if config is not None and config.symbols_only:  # gdb has the program's file alone: read-only
            raise TargetError(f"Cannot access memory at address {address:#x}")
        target = self.target()
        jumps = self.patches.overlapping(address, len(data))
        if jumps:  # its displaced copy would still run the old instructions
            raise TargetError(f"Cannot write to {address:#x}: a jump patch at {jumps[0].address:#x} holds those bytes")
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
        return self._call(lambda: self._symbols.mapped_modules() if self.has_target() else [])

    def lookup_address(self, address: int) -> SymbolLocation:
        """The symbol x/a and disassembly show (linkage names: gdb's `asm-demangle off`)."""
        return self._call(lambda: self._address_symbol(address))

    def _address_symbol(self, address: int) -> SymbolLocation:
        if self.hidden(address):
            return SymbolLocation(address=address, name=None, offset=0, module=None)
        return address_symbol(self.source, self.runtime_address(address), None)

    def section_symbol(self, address: int) -> SectionSymbol | None:
        def go() -> SectionSymbol | None:
            if self.hidden(address):
                return None
            runtime = self.runtime_address(address)
            module = self._symbols.module_at(runtime)
            if module is None:
                return None
            # gdb's minimal symbols: the image's and its debug file's (local names a stripped
            # library dropped); the nearer one names the address.
            images = (self._symbols.image_of(module.path), self.source.debug_image(module))
            hits = [hit for image in images if image is not None
                    and (hit := image.section_symbol(runtime - module.base)) is not None]  # fmt: skip
            if not hits:
                return None
            symbol, offset, section = min(hits, key=lambda hit: hit[1])
            name, several = symbol.name, len(self._symbols.modules()) > 1
            if self._demangler is None:
                self._demangler = Demangler()
            natural = natural_name(name, self._demangler)  # gdb's print name: `_Znwm@plt` demangled too
            shown = natural if natural != name else gdb_print_name(name)
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
        from aliceserver.debuggers.symbols.fpunwind import fp_backtrace

        def go() -> list[Frame]:
            regs = self.stopped_target(thread_id).general_registers(thread_id)
            return fp_backtrace(
                self.read_visible, regs["rip"], regs["rsp"], regs["rbp"], self._symbols.lookup_address, limit
            )

        return self._call(go)

    def symbolize(self, address: int, demangle: bool = True) -> str | None:
        """`<vtable for geo::Rect+16>`: values show symbols demangled, as gdb (`set print
        demangle on`); /a and disassembly keep them mangled (gdb's `asm-demangle off`)."""
        if self.hidden(address):
            return None
        runtime = self.runtime_address(address)
        source = self.source
        stamp = (source, source.symbols.generation)  # no module mapped, moved or dropped since
        if self._named_with != stamp or len(self._names) > _MAX_NAMES:
            self._names.clear()
            self._named_with = stamp
        key = (runtime, demangle)
        if key in self._names:
            return self._names[key]
        if self._demangler is None:
            self._demangler = Demangler()
        where = address_symbol(source, runtime, self._demangler.demangle if demangle else None)
        name = where.name
        if name is not None and where.offset:
            name = f"{name}{where.offset:+d}"
        self._names[key] = name
        return name

    def vtable_class(self, address: int) -> str | None:
        """`geo::Rect` when `address` is inside `vtable for geo::Rect` (dynamic types)."""
        where = self._symbols.lookup_address(address)
        if where.name is None or not where.name.startswith("_ZTV"):
            return None
        if self._demangler is None:
            self._demangler = Demangler()
        return vtable_class_name(self._demangler.demangle(where.name))

    def disassemble(self, address: int, count: int, *, syntax: str = "intel") -> list[Instruction]:
        def go() -> list[Instruction]:
            if self.program_gap(address, 1) is not None:
                raise TargetError(f"Cannot access memory at address {address:#x}")
            code = b""
            size = max(count, 1) * 15
            gap = self.program_gap(address, size)  # (before run: up to the section's end)
            size = size if gap is None else gap - address
            while size > 0 and not code:
                try:
                    code = self.read_visible(address, size)
                except TargetError:
                    if size <= 1:
                        raise
                    size //= 2  # the range runs off the mapping: take what is there
            return self._disassembler.disassemble(
                code, address, count, syntax=syntax,
                resolve=self._address_symbol,
            )

        return self._call(go)


def _first_unreadable(target: ProcessTarget, address: int, size: int) -> int:
    """The first page of a failed read that cannot be read (gdb's memory_error names the
    first byte it could not read: a long at 0x...ffc before an unmapped page, 0x...000)."""
    at, end = address, address + size
    while at < end:
        page_end = min((at | 0xFFF) + 1, end)
        try:
            target.read_memory(at, page_end - at)
        except (OSError, OverflowError, AliceError):
            return at
        at = page_end
    return address
