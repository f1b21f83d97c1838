"""Stack unwinding on Linux: CFI rows first, then signal frames, then frame records.

Each step turns one frame's registers into its caller's. A frame's CFA is the caller's stack
pointer at the call (the value of rsp right after the return), which is what the walk
checks for progress: it stops when a caller's CFA does not lie above its callee's. What
differs by CPU (register numbers, the return address's default rule, frame records,
signal frames) is the Architecture's (debuggers/arch); x86-64 where none is given.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aliceserver.debuggers.arch import x86_64
from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.arch.registry import X86_64_ARCH
from aliceserver.debuggers.arch.sigframes import signal_frame_slots
from aliceserver.debuggers.model import Module, SymbolLocation
from aliceserver.debuggers.symbols.dwarf.cfa_program import MASK64, Reader, RuleKind, UnwindRow
from aliceserver.debuggers.symbols.dwarf.cfiplan import StepPlan, planned_step, step_plan
from aliceserver.debuggers.symbols.dwarf.readregisters import CallerRegisters, ReadRegisters
from aliceserver.debuggers.symbols.dwarf.stackops import BINARY_OPS
from aliceserver.debuggers.symbols.linkmap import ReadMemory
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.cfi import CfiTable

log = logging.getLogger(__name__)

# x86-64's, for the code that reads x86-64 frames only (the arch package has them all).
DWARF_REGISTERS: Mapping[int, str] = x86_64.DWARF_REGISTERS
SIGRETURN_CODE = x86_64.SIGRETURN_CODE
UCONTEXT_GREGS = x86_64.UCONTEXT_GREGS
GREG_NAMES = x86_64.GREG_NAMES

_MAX_EXPRESSION_STEPS = 10_000  # DW_OP_bra can loop
_BATCH_SPAN = 512  # saved registers within this many bytes are read with one read
_PAGE = 4096  # the stack is read in pages for a backtrace...
# ...in smaller blocks for a frame or two (a stop's report, a step): a kilobyte holds the
# reads of a parked thread's frame-0 arguments too (twinthreads.py: not read again)
_SMALL_BLOCK = 1024


def stack_block(target: object) -> int:
    """The block a stop's frame or two are read in: a kilobyte, or what the target asks
    (a stub's memory cache line: a kilobyte there is three round trips, not one read)."""
    block = getattr(target, "stack_block", None)
    return block if isinstance(block, int) else _SMALL_BLOCK
_USED_READS = 64  # the reads a stack's top frames ask for, kept (a deep recursion's are not)


@dataclass(frozen=True, slots=True)
class UnwoundFrame:
    level: int
    pc: int
    cfa: int | None
    registers: Mapping[str, int]  # gdb names: what is known in this frame
    symbol: SymbolLocation
    method: str  # how this frame was found: "first", "cfi", "signal", "frame-pointer"
    signal_trampoline: bool = False  # this frame is __restore_rt (<signal handler called>)
    # Registers the callee's CFI marks undefined (DW_CFA_undefined), or that an undefined
    # one's unspecified rule carries out: gdb's `<not saved>` in this frame.
    undefined: frozenset[str] = frozenset()
    arch: Architecture = X86_64_ARCH  # whose registers `registers` names


Tables = Callable[[Module], "CfiTable | None"]


def unwind_stack(
    registers: Mapping[str, int],
    read: ReadMemory,
    symbols: ProcessSymbols,
    tables: Tables,
    limit: int = 256,
    arch: Architecture = X86_64_ARCH,
) -> list[UnwoundFrame]:
    """The frames of a stopped thread, innermost first, from its full register set."""
    return StackUnwinder(registers, read, symbols, tables, arch).extend(limit)


@dataclass
class UnwindLookups:
    """Each pc's CFI row and symbol, looked up once for the unwindings that share them:
    a recursion's frames, or 1,000 threads' stacks at one stop."""

    rows: dict[int, UnwindRow | None] = field(default_factory=dict)
    symbols: dict[tuple[int, bool, bool], SymbolLocation] = field(default_factory=dict)
    undefined: dict[int, frozenset[str]] = field(default_factory=dict)  # by pc, as rows
    plans: dict[int, StepPlan | None] = field(default_factory=dict)  # by pc, as rows (cfiplan.py)


class StackUnwinder:
    """A thread's unwinding that goes on where it stopped: a page of frames 50,000 deep is
    unwound once, and a deeper page later goes on from there (no unwind from the top)."""

    def __init__(
        self, registers: Mapping[str, int], read: ReadMemory, symbols: ProcessSymbols,
        tables: Tables, arch: Architecture = X86_64_ARCH, lookups: UnwindLookups | None = None,
        small_block: int = _SMALL_BLOCK,
    ) -> None:  # fmt: skip
        self._read, self._symbols, self._tables, self._arch = read, symbols, tables, arch
        self._small_block = small_block
        self.frames: list[UnwoundFrame] = []  # grows in place as more are unwound
        self.used: list[tuple[int, int]] = []  # the (address, size) of its first reads (twinthreads.py)
        self.done = False  # the outermost frame is known
        # registers read on demand stay so (a stub's `g` only if a rule needs one it lacks)
        self._regs: Mapping[str, int] = registers if isinstance(registers, ReadRegisters) else dict(registers)
        self._method = "first"
        self._undefined: frozenset[str] = frozenset()
        self._exact_pc = True  # frame 0 and the frame a signal interrupted: pc is no return address
        self._lookups = lookups if lookups is not None else UnwindLookups()

    def extend(self, limit: int) -> list[UnwoundFrame]:
        """The frames, unwound to `limit` of them (or all there are)."""
        frames, symbols, tables, arch = self.frames, self._symbols, self._tables, self._arch
        # Memory is read for this call only (it may be written after); a stop's frame 0 alone
        # or with its callers (a step's question, entry values through a tail call) needs a
        # few words, and over a stub a page is 8 KiB of hex to decode at each stop.
        read = _StackPages(self._read, self._small_block if limit <= 3 else _PAGE, self.used)
        rows, symbols_at, undefined_at = self._lookups.rows, self._lookups.symbols, self._lookups.undefined
        regs, method, undefined, exact_pc = self._regs, self._method, self._undefined, self._exact_pc
        while not self.done and len(frames) < limit:
            if arch.pc not in regs:
                self.done = True
                break
            pc = regs[arch.pc]
            lookup_pc = pc if exact_pc else pc - 1
            if lookup_pc in rows:
                row = rows[lookup_pc]
            else:
                row = rows[lookup_pc] = _row(symbols, tables, lookup_pc)
            trampoline = row.signal_frame if row is not None else arch.is_signal_trampoline(read, pc)
            caller: Mapping[str, int] | None = None
            cfa: int | None = None
            caller_undefined: frozenset[str] = frozenset()
            used_cfi = row is not None
            try:
                if row is not None:
                    try:
                        cfa, caller = self._step_row(row, lookup_pc, regs, read)
                        if lookup_pc not in undefined_at:  # 3 us a frame, the same at every stop
                            undefined_at[lookup_pc] = _undefined_rules(row, arch)
                        caller_undefined = undefined_at[lookup_pc]
                    except TargetError as exc:
                        # A rule this frame cannot evaluate: frame pointers may still know more.
                        log.debug("CFI at %#x unusable (%s); trying the frame pointer", pc, exc)
                        used_cfi = False
                        cfa, caller = _step_fp(regs, read, symbols, arch, first=not frames)
                elif trampoline:
                    step = arch.signal_frame_step(regs, read)
                    cfa, caller = step.cfa, step.registers
                else:
                    cfa, caller = _step_fp(regs, read, symbols, arch, first=not frames)
            except TargetError as exc:
                log.debug("unwinding stops at frame %d (pc %#x): %s", len(frames), pc, exc)
            if frames and not _progress(frames[-1], cfa, trampoline):
                log.debug("frame %d at %#x: CFA %s does not lie above its callee's", len(frames),
                          pc, cfa)  # fmt: skip
                self.done = True
                break
            key = (pc, exact_pc, trampoline and arch.is_signal_trampoline(read, pc))
            symbol = symbols_at.get(key)
            if symbol is None:
                symbol = symbols_at[key] = _symbol(symbols, *key)
            frames.append(
                UnwoundFrame(
                    level=len(frames),
                    pc=pc,
                    cfa=cfa,
                    registers=regs,
                    symbol=symbol,
                    method=method,
                    signal_trampoline=trampoline,
                    undefined=undefined,
                    arch=arch,
                )
            )
            if caller is None or not caller.get(arch.pc):
                self.done = True  # outermost (rip undefined), pc 0, or nothing more known
                break
            # Same value: what no rule of this frame gives stays as undefined as it was.
            if undefined:  # (most often none: 1 us a frame to find so)
                undefined = caller_undefined | frozenset(name for name in undefined if name not in caller)
            else:
                undefined = caller_undefined
            regs = caller
            exact_pc = trampoline
            method = "signal" if trampoline else ("cfi" if used_cfi else "frame-pointer")
        self._regs, self._method, self._undefined, self._exact_pc = regs, method, undefined, exact_pc
        return frames


    def _step_row(
        self, row: UnwindRow, lookup_pc: int, regs: Mapping[str, int], read: ReadMemory
    ) -> tuple[int, Mapping[str, int] | None]:
        """The CFI step: by the row's plan where it has one (cfiplan.py), else the general."""
        plans = self._lookups.plans
        plan = plans[lookup_pc] if lookup_pc in plans else plans.setdefault(lookup_pc, step_plan(row, self._arch))
        if plan is not None and not isinstance(regs, (ReadRegisters, CallerRegisters)):
            stepped = planned_step(plan, regs, read)
            if stepped is not None:
                return stepped
        return _step_cfi(row, regs, read, self._arch)


class _StackPages:
    """Reads served from aligned blocks (4 KiB pages, or smaller ones for a frame alone),
    each read once: a deep recursion's frames lie side by side, and a read of its own per
    frame was a third of a frame's cost."""

    def __init__(self, read: ReadMemory, block: int = _PAGE, used: list[tuple[int, int]] | None = None) -> None:
        self._read = read
        self._block = block
        self._pages: dict[int, bytes | None] = {}  # None: unreadable as a whole
        self._used = used  # each read asked for (its block holds bytes never looked at)

    def __call__(self, address: int, size: int) -> bytes:
        used = self._used
        if used is not None and len(used) <= _USED_READS:
            used.append((address, size) if len(used) < _USED_READS else (-1, 0))  # (-1, 0): more, not kept
        page = address & ~(self._block - 1)
        offset = address - page
        if offset + size > self._block:
            return self._read(address, size)
        if page in self._pages:
            data = self._pages[page]
        else:
            try:
                data = self._read(page, self._block)
            except TargetError:
                data = None
            self._pages[page] = data
        if data is None or len(data) < offset + size:
            return self._read(address, size)  # its own error, or the bytes it can read
        return data[offset : offset + size]


def saved_register_slots(
    frame: UnwoundFrame, read: ReadMemory, symbols: ProcessSymbols, tables: Tables
) -> list[tuple[str, int]]:
    """Where `frame` keeps its caller's registers in memory, in gdb's register order (gdb's
    `info frame` "Saved registers"): the CFI rules at the frame's pc that give an address;
    a frame without CFI saves rbp and rip below its CFA (the frame-pointer layout)."""
    if frame.signal_trampoline:  # the interrupted registers, in the kernel's sigcontext
        return signal_frame_slots(frame.arch, frame.registers)
    if frame.cfa is None:
        return []
    exact = frame.level == 0 or frame.method == "signal"
    row = _row(symbols, tables, frame.pc if exact else frame.pc - 1)
    if row is None:
        # The frame record below the CFA: rbp and rip (x86-64), x29 and x30 (aarch64).
        arch = frame.arch
        return [(arch.fp, frame.cfa - 16), (arch.link or arch.pc, frame.cfa - 8)]
    arch = frame.arch
    slots: dict[str, int] = {}
    for number, rule in row.rules:
        # The return column by its register's name (x30) where it has one, else the pc (rip).
        name = arch.register_name(number) or (arch.pc if number == row.return_column else None)
        if name is None:
            continue
        if rule.kind is RuleKind.OFFSET:
            slots[name] = (frame.cfa + rule.value) & MASK64
        elif rule.kind is RuleKind.EXPRESSION:
            try:
                slots[name] = evaluate(
                    rule.expression, frame.registers, read, frame.cfa, arch.dwarf_registers
                )
            except TargetError:
                continue
    return [(name, slots[name]) for name in arch.gdb_registers if name in slots]


_ENDBR64 = bytes.fromhex("f30f1efa")
_MOV_RSP_RBP = (bytes.fromhex("4889e5"), bytes.fromhex("488bec"))


_PROLOGUE_READ = 1024  # bytes of a function read for aarch64's frame size (256 instructions)


def frame_base(frame: UnwoundFrame, read: ReadMemory) -> int | None:
    """The frame's base as gdb's x86-64 prologue analysis finds it (`info frame`'s "Arglist
    at"): rbp once `push %rbp; mov %rsp,%rbp` has run, else rsp - 8, or rsp after the push.
    On aarch64 the frame's x29 once its prologue pointed it at the frame, else its sp."""
    if frame.arch.name == "aarch64":
        return _aarch64_frame_base(frame, read)
    rsp, rbp = frame.registers.get("rsp"), frame.registers.get("rbp")
    if rsp is None:
        return None
    offset = -8
    if frame.symbol.name is not None:
        start = frame.pc - frame.symbol.offset
        try:
            code = read(start, 8)
        except TargetError:
            code = b""
        if code.startswith(_ENDBR64):
            start, code = start + 4, code[4:]
        if frame.pc > start and code[:1] == b"\x55":  # push %rbp has run
            offset = 0
            if frame.pc > start + 1 and code[1:4] in _MOV_RSP_RBP and rbp is not None:
                return rbp
    return (rsp + offset) & MASK64


def _aarch64_frame_base(frame: UnwoundFrame, read: ReadMemory) -> int | None:
    from aliceserver.debuggers.arch.aarch64 import frame_register

    register = "sp"
    if frame.symbol.name is not None:
        start = frame.pc - frame.symbol.offset
        try:
            register = frame_register(read(start, min(frame.symbol.offset, _PROLOGUE_READ)))
        except TargetError:
            pass
    return frame.registers.get(register)


def _row(symbols: ProcessSymbols, tables: Tables, pc: int) -> UnwindRow | None:
    module = symbols.mapped_module_at(pc)  # a library without its symbols keeps its CFI
    table = None if module is None else tables(module)
    if module is None or table is None:
        return None
    try:
        return table.row_at((pc - module.base) & MASK64)
    except TargetError as exc:
        log.debug("%s: no usable CFI at %#x: %s", module.path, pc, exc)
        return None


def _progress(callee: UnwoundFrame, cfa: int | None, trampoline: bool) -> bool:
    # Signal frames may switch stacks (sigaltstack), so only their CFA's sameness is checked.
    if callee.cfa is None or cfa is None:
        return True
    if trampoline or callee.signal_trampoline:
        return cfa != callee.cfa
    return cfa > callee.cfa


def _symbol(symbols: ProcessSymbols, pc: int, exact: bool, sigreturn: bool) -> SymbolLocation:
    if exact or sigreturn:
        location = symbols.lookup_address(pc)
        if sigreturn and (location.name is None or location.offset != 0):
            # __restore_rt is a local symbol stripped from libc; the nearest exported one
            # before it would name the trampoline wrongly.
            return SymbolLocation(pc, "__restore_rt", 0, location.module)
        return location
    # A return address may lie past the end of its function (a call to a noreturn function
    # is often its last instruction), so name the call instruction's function.
    location = symbols.lookup_address(pc - 1)
    if location.name is None:
        return SymbolLocation(pc, None, 0, location.module)
    return SymbolLocation(pc, location.name, location.offset + 1, location.module)


def _read_u64(read: ReadMemory, address: int) -> int:
    data = read(address & MASK64, 8)
    if len(data) != 8:
        raise TargetError(f"short read at {address:#x}")
    return int.from_bytes(data, "little")


def _dwarf_value(regs: Mapping[str, int], number: int, names: Mapping[int, str]) -> int:
    name = names.get(number)
    if name is None or name not in regs:
        raise TargetError(f"DWARF register {number} is not known in this frame")
    return regs[name]


# --- the three kinds of step ---------------------------------------------------------------


def _step_cfi(
    row: UnwindRow, regs: Mapping[str, int], read: ReadMemory, arch: Architecture
) -> tuple[int, Mapping[str, int] | None]:
    names = arch.dwarf_registers
    if row.cfa.expression is not None:
        cfa = evaluate(row.cfa.expression, regs, read, names=names)
    else:
        cfa = (_dwarf_value(regs, row.cfa.register, names) + row.cfa.offset) & MASK64
    # registers read on demand: the kept (same value) ones read from the callee when asked
    lazy = isinstance(regs, (ReadRegisters, CallerRegisters))
    caller = {} if lazy else {name: regs[name] for name in arch.same_value if name in regs}
    caller[arch.sp] = cfa
    lost: set[str] = set()
    saved = _read_saved(row, cfa, read)
    outermost = False
    for number, rule in row.rules:
        name = names.get(number)
        kind = rule.kind
        is_ra = number == row.return_column
        if name is None and not is_ra:
            continue  # vector and other registers this unwinder does not track
        value: int | None
        try:
            if kind is RuleKind.UNDEFINED:
                value = None
                outermost = outermost or is_ra
            elif kind is RuleKind.SAME_VALUE:
                value = regs.get(name) if name else None
            elif kind is RuleKind.OFFSET:
                address = (cfa + rule.value) & MASK64
                value = saved[address] if address in saved else _read_u64(read, address)
            elif kind is RuleKind.VAL_OFFSET:
                value = (cfa + rule.value) & MASK64
            elif kind is RuleKind.REGISTER:
                value = _dwarf_value(regs, rule.value, names)
            elif kind is RuleKind.EXPRESSION:
                value = _read_u64(read, evaluate(rule.expression, regs, read, cfa, names))
            else:
                value = evaluate(rule.expression, regs, read, cfa, names)
        except TargetError:
            if is_ra:
                raise  # without a return address there is no caller
            value = None  # an unreadable save slot loses that register only
        targets = [arch.pc] if is_ra else []
        if name is not None and name not in targets:
            targets.append(name)  # aarch64: the caller's x30 is the return address too
        for each in targets:
            if value is None:
                caller.pop(each, None)
                lost.add(each)
            else:
                caller[each] = value
                lost.discard(each)
    if outermost:
        return cfa, None
    if row.rule(row.return_column) is None:
        # No rule: where a link register holds the return address, a leaf left it there.
        link = arch.default_return_address(regs)
        if link is None or arch.link is None:
            raise TargetError("the CFI row has no rule for the return address")
        caller[arch.pc] = caller[arch.link] = link  # the link register keeps its value too
        lost.discard(arch.link)
    if lazy:
        return cfa, CallerRegisters(caller, regs, [n for n in arch.same_value if n not in lost], arch.same_value)
    return cfa, caller


def _undefined_rules(row: UnwindRow, arch: Architecture) -> frozenset[str]:
    names = (arch.register_name(number) for number, rule in row.rules
             if rule.kind is RuleKind.UNDEFINED and number != row.return_column)  # fmt: skip
    return frozenset(name for name in names if name is not None)


def _read_saved(row: UnwindRow, cfa: int, read: ReadMemory) -> dict[int, int]:
    """Registers saved at CFA+offset, fetched with one read when they lie close together."""
    offsets = [rule.value for _, rule in row.rules if rule.kind is RuleKind.OFFSET]
    if len(offsets) < 2:
        return {}
    low, high = min(offsets), max(offsets) + 8
    if high - low > _BATCH_SPAN:
        return {}
    try:
        data = read((cfa + low) & MASK64, high - low)
    except TargetError:
        return {}  # read them one by one, so that only the unreadable ones are lost
    return {
        (cfa + off) & MASK64: int.from_bytes(data[off - low : off - low + 8], "little")
        for off in offsets
    }


def _step_fp(
    regs: Mapping[str, int],
    read: ReadMemory,
    symbols: ProcessSymbols,
    arch: Architecture,
    *,
    first: bool,
) -> tuple[int | None, dict[str, int] | None]:
    step = arch.frame_record_step(regs, read, symbols.lookup_address, first=first)
    return (None, None) if step is None else (step.cfa, step.registers)


# --- DWARF expressions of CFA and register rules --------------------------------------------


def _signed(value: int) -> int:
    return value - (1 << 64) if value & (1 << 63) else value


def evaluate(
    expression: bytes,
    regs: Mapping[str, int],
    read: ReadMemory,
    push: int | None = None,
    names: Mapping[int, str] = DWARF_REGISTERS,
) -> int:
    """The value of a CFI expression (`push` starts the stack: the CFA for register rules).

    Only the stack-machine operations call frame information uses; anything else, a stack
    underflow or a runaway loop raises TargetError.
    """
    stack: list[int] = [] if push is None else [push]
    reader = Reader(expression)
    steps = 0

    def pop() -> int:
        if not stack:
            raise TargetError("DWARF expression stack underflow")
        return stack.pop()

    while reader.pos < reader.end:
        steps += 1
        if steps > _MAX_EXPRESSION_STEPS:
            raise TargetError("DWARF expression does not terminate")
        op = reader.u8()
        if 0x30 <= op <= 0x4F:  # lit0..lit31
            stack.append(op - 0x30)
        elif 0x70 <= op <= 0x8F:  # breg0..breg31
            stack.append((_dwarf_value(regs, op - 0x70, names) + reader.sleb()) & MASK64)
        elif op == 0x92:  # bregx
            number = reader.uleb()
            stack.append((_dwarf_value(regs, number, names) + reader.sleb()) & MASK64)
        elif 0x50 <= op <= 0x6F or op == 0x90:  # reg0..31, regx: the register's value
            number = op - 0x50 if op != 0x90 else reader.uleb()
            stack.append(_dwarf_value(regs, number, names))
        elif op == 0x03:  # addr
            stack.append(reader.unsigned(8))
        elif 0x08 <= op <= 0x0F:  # const1u .. const8s
            size = 1 << ((op - 0x08) // 2)
            stack.append((reader.signed(size) if op & 1 else reader.unsigned(size)) & MASK64)
        elif op == 0x10:
            stack.append(reader.uleb() & MASK64)
        elif op == 0x11:
            stack.append(reader.sleb() & MASK64)
        elif op == 0x12:  # dup
            stack.append(_pick(stack, 0))
        elif op == 0x13:  # drop
            pop()
        elif op == 0x14:  # over
            stack.append(_pick(stack, 1))
        elif op == 0x15:  # pick
            stack.append(_pick(stack, reader.u8()))
        elif op == 0x16:  # swap
            a, b = pop(), pop()
            stack.extend((a, b))
        elif op == 0x17:  # rot
            a, b, c = pop(), pop(), pop()
            stack.extend((a, c, b))
        elif op == 0x06:  # deref
            stack.append(_read_u64(read, pop()))
        elif op == 0x94:  # deref_size
            size = reader.u8()
            if not 1 <= size <= 8:
                raise TargetError(f"DW_OP_deref_size {size}")
            stack.append(int.from_bytes(read(pop(), size), "little"))
        elif op == 0x23:  # plus_uconst
            stack.append((pop() + reader.uleb()) & MASK64)
        elif op in BINARY_OPS:
            b, a = pop(), pop()
            try:
                stack.append(BINARY_OPS[op](a, b) & MASK64)
            except ZeroDivisionError:
                raise TargetError("division by zero in a DWARF expression") from None
        elif op == 0x1F:  # neg
            stack.append(-pop() & MASK64)
        elif op == 0x20:  # not
            stack.append(~pop() & MASK64)
        elif op == 0x19:  # abs
            stack.append(abs(_signed(pop())) & MASK64)
        elif op == 0x2F:  # skip
            _jump(reader, reader.signed(2))
        elif op == 0x28:  # bra
            offset = reader.signed(2)
            if pop():
                _jump(reader, offset)
        elif op == 0x96:  # nop
            pass
        else:
            raise TargetError(f"DWARF operation {op:#x} is not supported in CFI")
    if not stack:
        raise TargetError("DWARF expression left no value")
    return stack[-1]


def _pick(stack: list[int], index: int) -> int:
    if index >= len(stack):
        raise TargetError("DWARF expression stack underflow")
    return stack[-1 - index]


def _jump(reader: Reader, offset: int) -> None:
    target = reader.pos + offset
    if not 0 <= target <= reader.end:
        raise TargetError("DWARF expression branches outside itself")
    reader.pos = target


