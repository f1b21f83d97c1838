"""gdb's tail-call frames (dwarf2/frame-tailcall.c) in a thread's stack: where a caller's
call site reaches its callee's function only through tail calls (tailcalls.py finds the
chain from the call-site DWARF), a virtual frame for each function on the way, between
the callee and its caller. glibc's raise calls __pthread_kill, which jumps on to
__pthread_kill_implementation: gdb shows __pthread_kill_internal between them.

A virtual frame keeps its caller's registers but for the pc (its tail call's return pc,
as gdb's pretend pc) and the stack pointer (the callee's CFA, as gdb 13 shows `$sp` there:
the caller's once the callee returns), and shares the callee's CFA (gdb's frame id for it).
Stepping and `finish` go by the physical frames alone: a tail-called function returns to
the caller of the chain.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from aliceserver.debuggers.model import Module, SymbolLocation
from aliceserver.debuggers.restamp import restamped
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols, lookup_pc
from aliceserver.debuggers.symbols.dwarf.cfi import CfiTable
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.elfheaders import SHT_NOBITS
from aliceserver.errors import AliceError

TAIL_CALL = "tailcall"  # UnwoundFrame.method of a virtual tail-call frame


@dataclass(slots=True)
class TailCallStack:
    """A thread's unwound frames with the tail-call frames put in, levels numbered anew;
    made from the front of the unwinding, and made further as it goes deeper."""

    physical: list[UnwoundFrame]  # the unwinding (it may grow in place)
    frames: list[UnwoundFrame] = field(default_factory=list)
    placed: int = 0  # physical[:placed] are in `frames`

    def extend(self, source: SourceSymbols, levels: int, links: TailCallLinks | None = None) -> list[UnwoundFrame]:
        """At least `levels` frames (fewer where the unwinding has no more), ending at a
        physical frame. Only as deep as asked: a chain below costs its module's DWARF (a
        stop's arguments need their caller alone, not libc's __libc_start_main)."""
        physical, frames = self.physical, self.frames
        while self.placed < len(physical) and len(frames) < levels:
            frame = physical[self.placed]
            if self.placed:
                for virtual in between(source, physical[self.placed - 1], frame, links):
                    frames.append(restamped(virtual, level=len(frames)))
            # Most often no tail call came before: the frame as unwound
            frames.append(frame if frame.level == len(frames) else restamped(frame, level=len(frames)))
            self.placed += 1
        return frames


class TailCallLinks:
    """The tail-call chain found between a call site and the function it reached, kept
    across stops: it depends on the module's code and DWARF alone, and a loop's stops
    unwind through the same call sites (CPython's 20 frames: 0.3 ms of each stackTrace)."""

    def __init__(self) -> None:
        # (module path, load bias, caller's return pc, callee's lookup pc) -> (the module's
        # image they were found in, the chain's return pcs with their symbols)
        self._found: dict[tuple[str, int, int, int], tuple[ElfImage | None, tuple[SymbolLocation, ...]]] = {}
        # (module path, load bias, caller's return pc, callee's FDE range) -> the image where
        # that call is a direct one of the FDE's start (no chain): a stepi's pcs are new at
        # each stop, its function is not
        self._direct: dict[tuple[str, int, int, int, int], ElfImage] = {}

    def chain(self, source: SourceSymbols, module: Module, caller_pc: int, in_block: int) -> tuple[SymbolLocation, ...]:
        """The chain's return pcs with their symbols (as `_located`)."""
        key = (module.path, module.base, caller_pc, in_block)
        image = source.symbols.image_of(module.path)
        found = self._found.get(key)
        if found is not None and found[0] is image:  # the same file (not rebuilt meanwhile)
            return found[1]
        if len(self._found) >= _MAX_LINKS:
            self._found.clear()
        if self._calls_entry(source, module, image, caller_pc, in_block):
            self._found[key] = (image, ())  # what _chain finds first, the call's code not read again
            return ()
        # Their symbols too: 1,000 threads blocked alike show the same virtual frame
        located = _located(source, module, _chain(source, module, caller_pc, in_block))
        self._found[key] = (image, located)
        return located

    def _calls_entry(self, source: SourceSymbols, module: Module, image: ElfImage | None, caller_pc: int,
                     in_block: int) -> bool:  # fmt: skip
        """_calls_entry's answer, kept by the callee's FDE (the same for each pc in it)."""
        cfi = source.cfi(module)
        if cfi is None or image is None:
            return False
        function = cfi.find_fde(in_block - module.base)
        if function is None or not function.low <= in_block - module.base < function.high:
            return False
        key = (module.path, module.base, caller_pc, function.low, function.high)
        if self._direct.get(key) is image:
            return True
        if not _calls_entry(image, cfi, caller_pc - module.base, in_block - module.base):
            return False
        if len(self._direct) >= _MAX_LINKS:
            self._direct.clear()
        self._direct[key] = image
        return True


_MAX_LINKS = 65536  # call sites remembered


def between(
    source: SourceSymbols, callee: UnwoundFrame, caller: UnwoundFrame, links: TailCallLinks | None = None
) -> list[UnwoundFrame]:
    """The virtual frames between physical `callee` and its `caller`, innermost first: none
    unless the callee was unwound by its CFI (gdb's dwarf2 frames alone look for them)."""
    if caller.method != "cfi" or callee.cfa is None or callee.signal_trampoline:
        return []
    in_block = lookup_pc(callee)
    symbols_of = source.symbols
    module = symbols_of.module_at(in_block)
    if module is None:
        return []
    if links is None:
        located = _located(source, module, _chain(source, module, caller.pc, in_block))
    else:
        located = links.chain(source, module, caller.pc, in_block)
    arch = caller.arch
    virtual = []
    for symbol in located:
        pc = symbol.address
        # Registers the caller's CFI leaves unsaid keep the callee's (gdb's same value)
        registers = {**callee.registers, **caller.registers, arch.pc: pc, arch.sp: callee.cfa}
        virtual.append(restamped(caller, pc=pc, cfa=callee.cfa, registers=registers, symbol=symbol, method=TAIL_CALL))
    return virtual


def _located(source: SourceSymbols, module: Module, link_pcs: tuple[int, ...]) -> tuple[SymbolLocation, ...]:
    """Each link-time return pc of a chain at its address in `module`, with its symbol."""
    located = []
    for link_pc in link_pcs:
        pc = link_pc + module.base
        location = source.symbols.lookup_address(pc - 1)  # a return pc: the call is before it
        located.append(SymbolLocation(pc, location.name, location.offset + 1 if location.name else 0, location.module))
    return tuple(located)


def _chain(source: SourceSymbols, module: Module, caller_pc: int, in_block: int) -> tuple[int, ...]:
    """The link-time return pcs of the tail calls from the call returning to `caller_pc`
    to the function holding `in_block` (in `module`), innermost first; mostly none."""
    symbols_of = source.symbols
    if symbols_of.module_at(caller_pc - 1) is not module:
        return ()  # gdb could follow a tail call into another module; rare, not done
    symbols = source.module_symbols(module)
    if symbols is None:
        return ()
    code, cfi = symbols_of.image_of(module.path), source.cfi(module)
    if code is not None and cfi is not None and _calls_entry(code, cfi, caller_pc - module.base, in_block - module.base):
        return ()  # the common case, told without the caller's call-site DWARF
    from aliceserver.debuggers.symbols.dwarf.tailcalls import names_its_callee, tail_call_frames

    try:
        if not names_its_callee(symbols, caller_pc - module.base):
            return ()  # a call through a register (as gdb: no chain), the callee not looked up
        cu = symbols.units.cu_for_address(in_block - module.base)
        at = None if cu is None else symbols.units.function_die_at(cu, in_block - module.base)
        function = None if at is None else symbols.function_address(at.subprogram)
        return () if function is None else tail_call_frames(symbols, caller_pc - module.base, function)
    except (AliceError, ValueError, KeyError):  # odd DWARF: no chain, as gdb gives up
        return ()


_CALL_REL32 = 0xE8
_EXECINSTR = 0x4  # SHF_EXECINSTR


def _calls_entry(code: ElfImage, cfi: CfiTable, call_return: int, callee_pc: int) -> bool:
    """Whether the call returning to link-time `call_return` is a direct call (rel32) of
    the start of the function (its FDE) holding link-time `callee_pc`. Then gdb finds no
    tail call between: a call site's DWARF target is its instruction's (so for every direct
    call of CPython's and libc's 62,000 call sites but through a PLT stub), and the chain
    ends where it starts. Other calls (through a register: CPython's most) are looked up
    in the DWARF."""
    insn = _code_bytes(code, call_return - 7, 7)
    if len(insn) != 7 or insn[2] != _CALL_REL32:
        return False
    if insn[0] == 0xFF and insn[1] & 0x38 == 0x10:  # an indirect call whose SIB byte is 0xe8
        return False
    target = (call_return + int.from_bytes(insn[3:], "little", signed=True)) & 0xFFFF_FFFF_FFFF_FFFF
    function = cfi.find_fde(callee_pc)
    return function is not None and function.low == target and function.low <= callee_pc < function.high


def _code_bytes(image: ElfImage, address: int, size: int) -> bytes:
    """`size` bytes of the file's code at link-time `address` (b"" where it has none): the
    file's, not memory's, where a breakpoint may have put an int3."""
    for section in image.sections:
        if (section.flags & _EXECINSTR and section.type != SHT_NOBITS
                and section.addr <= address and address + size <= section.addr + section.size):  # fmt: skip
            try:
                with open(image.path, "rb") as stream:
                    return os.pread(stream.fileno(), size, section.offset + address - section.addr)
            except OSError:
                return b""
    return b""
