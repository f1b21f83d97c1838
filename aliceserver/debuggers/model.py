"""Value types shared by the engine and the adapters (frozen, slotted dataclasses)."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping


class StdioMode(enum.Enum):
    PIPES = "pipes"  # stdin/stdout/stderr on pipes; output arrives as Output events
    TTY = "tty"  # all three on the terminal named by LaunchConfig.tty
    INHERIT = "inherit"  # the server's own stdio (gdb -batch; the demo)
    # stdin on a pipe of ours (reads wait), stdout/stderr the server's own: gdb's console and MI on
    # stdio with no inferior tty, whose input is the command stream
    INHERIT_OUTPUT = "inherit-output"


class ForkFollow(enum.Enum):
    PARENT = "parent"  # stay with the parent, the child runs free (gdb's default)
    CHILD = "child"  # follow the child, the parent runs free


@dataclass(frozen=True, slots=True)
class Redirection:
    """One of a shell's redirections, applied without a shell (gdb's `run < in > out 2>&1`):
    the program's descriptor `fd` (0-2) opened on `path` ("r" read, "w" truncate, "a"
    append, relative to the program's working directory), or a copy of `copy_of`."""

    fd: int
    path: str | None = None
    mode: str = "r"
    copy_of: int | None = None


@dataclass(frozen=True, slots=True)
class LaunchConfig:
    program: str
    args: tuple[str, ...] = ()
    cwd: str | None = None
    env: Mapping[str, str] | None = None  # None: the server's environment
    stdio: StdioMode = StdioMode.PIPES
    tty: str | None = None
    stop_on_entry: bool = False  # stop at the program's entry point (AT_ENTRY)
    disable_aslr: bool = True  # like gdb's `set disable-randomization on`
    follow_fork: ForkFollow = ForkFollow.PARENT
    redirections: tuple[Redirection, ...] = ()  # applied in order, after `stdio`
    # Held at its first instruction for its symbols alone (gdb after `file`, before `run`):
    # the program's image shows at its link-time addresses, as gdb shows a PIE it has
    # not loaded (values, memory, symbols, disassembly).
    symbols_only: bool = False
    # A symbols_only start of a program that has run: shown at its load addresses, as gdb
    # keeps a program's image relocated once it ran (until another `file`)
    relocated: bool = False
    # A relocated start's libraries of the run that ended, (path, bias): gdb keeps their
    # symbols until the next run reads the loader's list (unmapped: read from their files)
    kept_libraries: tuple[tuple[str, int], ...] = ()
    # What an extended-remote stub starts (gdb's `remote exec-file`): a file on the stub's
    # machine, "" the stub's default program; None: `program`
    remote_program: str | None = None
    # The program shares the server's terminal (its stdin, INHERIT): it starts in a process
    # group of its own, which holds the terminal while it runs (foreground.py), as in gdb
    shares_terminal: bool = False

    def unusable(self) -> str | None:
        """What no process can be given, naming its field (`'args[1]' ...`), or None."""
        for name, text in (("program", self.program), ("cwd", self.cwd or "")):
            if not os_text(text):
                return f"'{name}' holds a NUL or a character no file name can"
        for index, text in enumerate(self.args):
            if not os_text(text):
                return f"'args[{index}]' holds a NUL or a character no program argument can"
        for key, value in (self.env or {}).items():
            if not key or "=" in key or not os_text(key):
                return f"'env' holds a name no environment can: {key!r}"
            if not os_text(value):
                return f"'env.{key}' holds a NUL or a character no environment can"
        for redirection in self.redirections:
            if redirection.path is not None and not os_text(redirection.path):
                return "a redirection's file name holds a NUL or a character no file name can"
        return None


def os_text(text: str) -> bool:
    """Whether the system can take `text` as a path, program argument or environment entry:
    no NUL and no lone surrogate (JSON lets a client send "\\ud800"; the names of
    undecodable bytes, decoded with surrogateescape, encode back fine)."""
    try:
        os.fsencode(text)
    except UnicodeEncodeError:
        return False
    return "\0" not in text


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    pid: int
    program: str
    attached: bool  # True when attached to an existing process


class ThreadState(enum.Enum):
    STOPPED = "stopped"
    RUNNING = "running"
    EXITED = "exited"


@dataclass(frozen=True, slots=True)
class ThreadInfo:
    tid: int
    name: str
    state: ThreadState
    pc: int | None  # None while running
    core: int | None = None  # the CPU it last ran on, when the system says
    details: str = ""  # a stub's words on it (qThreadExtraInfo: qemu's "CPU#0 [running]")


class CatchKind(enum.Enum):
    """Process events a client may stop at, like gdb's `catch exec` / `catch fork`."""

    EXEC = "exec"
    FORK = "fork"  # fork and vfork
    THROW = "throw"  # a C++ exception is thrown (__cxa_throw)
    CATCH = "catch"  # a C++ exception is caught (__cxa_begin_catch)
    RETHROW = "rethrow"  # a C++ exception is rethrown (__cxa_rethrow)
    PANIC = "panic"  # a Rust panic starts (rust_panic)


class WatchKind(enum.Enum):
    WRITE = "write"
    READ_WRITE = "readwrite"  # x86 has no read-only watch; reads trap with this one


@dataclass(frozen=True, slots=True)
class BreakpointInfo:
    id: int
    address: int
    enabled: bool
    temporary: bool
    hit_count: int
    inserted: bool  # the trap is in memory (False after exec wiped the image)
    note: str = ""  # how it is in the program when not as a plain trap: its jump patch, or why none


@dataclass(frozen=True, slots=True)
class WatchScope:
    """The frame a watch on locals belongs to (gdb's watchpoint frame): the watch is
    deleted when that frame is left, and only the thread it runs in is watched."""

    thread_id: int
    frame_cfa: int  # the frame's canonical frame address: its identity on the stack


@dataclass(frozen=True, slots=True)
class WatchpointInfo:
    id: int
    address: int
    size: int  # bytes watched (x86-64: up to 32, over its four debug registers)
    kind: WatchKind
    enabled: bool
    hit_count: int
    value: bytes  # the bytes at the last stop or insertion
    scope: WatchScope | None = None  # None: globals only, watched in every thread
    software: bool = False  # checked after each single step (no debug register holds it)


@dataclass(frozen=True, slots=True)
class SignalPolicy:
    """What the engine does when the program receives a signal (gdb's `handle`)."""

    stop: bool = True  # report a stop to the client
    pass_to_program: bool = True  # deliver it when the program resumes
    print_: bool = True  # emit a console Output line when it arrives


@dataclass(frozen=True, slots=True)
class Module:
    """A mapped ELF image: the executable, a shared library, or the dynamic loader."""

    path: str
    base: int  # load bias: runtime address minus link-time address
    low: int  # lowest mapped address of the image
    high: int  # one past the highest mapped address
    is_main: bool = False
    text: tuple[int, int] | None = None  # runtime [start, end) of its .text section
    # The name the target gives it where another file is read for it (`set sysroot`):
    # gdb's MI target-name, `path` being its host-name
    target_name: str = ""


@dataclass(frozen=True, slots=True)
class SymbolLocation:
    """An address resolved against the symbol tables: `name+offset` in `module`."""

    address: int
    name: str | None
    offset: int
    module: str | None  # path of the module, or None when no module maps the address


@dataclass(frozen=True, slots=True)
class SectionSymbol:
    """gdb's `info symbol ADDR`: the ELF symbol at or before the address in the section
    holding it (`name + offset in section .text of PATH`)."""

    name: str  # as gdb prints it (demangled)
    offset: int
    section: str
    module: str  # the image's path
    several_modules: bool  # more than one image is loaded (gdb then names the image)


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of a raw (frame-pointer) backtrace; CFI unwinding refines it later."""

    level: int
    pc: int
    sp: int
    fp: int
    symbol: SymbolLocation


@dataclass(frozen=True, slots=True)
class Instruction:
    address: int
    size: int
    raw: bytes
    mnemonic: str
    operands: str
    symbol: SymbolLocation | None = None  # where the instruction is (func+off)
    target: SymbolLocation | None = None  # resolved call/jump target, when direct
    arch: str = "i386:x86-64"  # gdb's name of the architecture decoded: how to spell it


@dataclass(frozen=True, slots=True)
class FaultInfo:
    """Details of a synchronous crash signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP...)."""

    address: int | None  # si_addr: the faulting data or instruction address
    code: int  # si_code
    description: str  # e.g. "address not mapped to object"


@dataclass(frozen=True, slots=True)
class Registers:
    """A snapshot of one thread's registers; `values` maps gdb's names to integers."""

    values: Mapping[str, int] = field(default_factory=dict)

    def __getitem__(self, name: str) -> int:
        return self.values[name]


@dataclass(frozen=True, slots=True)
class VectorRegisters:
    """The x87/SSE/AVX state: st0-7 (80-bit as 10 bytes), xmm0-15, ymm0-15 and control words."""

    control: Mapping[str, int]  # fctrl, fstat, ftag, fop, mxcsr, ...
    st: tuple[bytes, ...]
    xmm: tuple[bytes, ...]
    ymm: tuple[bytes, ...]  # empty when the kernel offers no AVX state


@dataclass(frozen=True, slots=True)
class SourcePosition:
    path: str  # absolute, as the debug info names it (normalised)
    line: int
    column: int = 0
    # gdb's name for the file in this place's unit (symtab_files.py), where the unit's
    # line table names it otherwise than `path` (`./nptl/pthread_kill.c`)
    symtab: str | None = field(default=None, compare=False)
    symtab_fullname: str | None = field(default=None, compare=False)  # gdb's while found nowhere
    # (module, unit offset) of the place: with the path, gdb's symtab (a header has one per
    # unit including it), which gdb's "No such file" once per symtab in a row goes by
    unit: tuple[str, int] | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class CodeLocation:
    """One place a location spec ("file.c:12", "func", "*0x...") resolved to."""

    address: int
    function: str | None
    source: SourcePosition | None
    module: str | None
    requested_line: int | None = None  # for file:line specs that moved to the next line with code
    ifunc: bool = False  # an STT_GNU_IFUNC's resolver, its target not known yet (source/ifuncs.py)


@dataclass(frozen=True, slots=True)
class StackFrame:
    """A frame of a CFI-unwound stack, with its source position when there is line info."""

    level: int
    pc: int
    cfa: int | None
    function: str | None
    source: SourcePosition | None
    module: str | None
    symbol: SymbolLocation
    signal_trampoline: bool = False  # gdb's <signal handler called>
    called_from_debugger: bool = False  # a call into the program left stopped: <function called from gdb>
    inlined: bool = False  # an inlined call: shares pc and CFA with the frame after it
    # A function that tail-called the frame before it (gdb's tail-call frame): its pc is
    # the tail call's return pc, its CFA the callee's.
    tail_call: bool = False
    # The program's main function (DW_AT_main_subprogram, as Rust's `crate::main`, else C's
    # `main`): gdb's backtraces end here unless `set backtrace past-main on`.
    program_main: bool = False


@dataclass(frozen=True, slots=True)
class FrameDetails:
    """What gdb's `info frame` adds to a stack frame."""

    language: str | None  # gdb's name of the unit's language ("c", "c++", "rust"); None: no debug info
    saved_registers: tuple[tuple[str, int], ...]  # (register, address it is saved at), gdb's order
    base: int | None = None  # where gdb says its arguments and locals are ("Arglist at")


@dataclass(frozen=True, slots=True)
class LocationBreakpointInfo:
    """A breakpoint on a location spec: bound to every place the spec resolves to now, and
    to new ones as libraries load (pending while it resolves nowhere)."""

    id: int
    location: str
    locations: tuple[CodeLocation, ...]
    breakpoint_ids: tuple[int, ...]  # the address breakpoints it owns, one per location
    enabled: bool
    temporary: bool

    @property
    def pending(self) -> bool:
        return not self.locations


class VariableScope(enum.Enum):
    ARGUMENTS = "arguments"
    LOCALS = "locals"
    GLOBALS = "globals"  # of the frame's compilation unit: its globals and statics
    REGISTERS = "registers"

    # Members are singletons compared by identity: Enum's own hash runs in Python, and the
    # stop cache's keys hold a scope (13 hashes per thread of a -thread-info of 1,000)
    __hash__ = object.__hash__


@dataclass(frozen=True, slots=True)
class PrinterView:
    """How a pretty printer (gdb's Python API, debuggers/printers) shows a value."""

    head: str  # its to_string text ("" when it has none): DAP's value line
    summary: str  # gdb's summary (frame arguments): the head and `{...}` for children
    hint: str | None  # its display_hint: "array", "map", "string" or None
    has_children: bool  # it has a children method (gdb's dynamic var object)
    count: int | None  # children as shown (map: key-value pairs); None: not counted
    indexed: bool  # children are paged by index (array and map hints, `[0]`-named ones)
    raw_reference: int = 0  # the value's own members (its `[raw]` child), 0: none
    raw_value: str = ""  # the value printed without printers


# A variable gdb could not read at all (its location failed): `print` fails with the rest
# of the text, frame lines show it whole, `info locals` as <error reading variable NAME (...)>.
READ_ERROR = "<error reading variable: "


@dataclass(frozen=True, slots=True)
class VariableInfo:
    """A value as the front ends show it; `reference` > 0 names its children while stopped."""

    name: str
    type: str
    value: str
    reference: int = 0  # 0: no children
    named_children: int = 0  # struct members, pointer targets
    indexed_children: int = 0  # array elements (paged)
    address: int | None = None
    error: bool = False  # `value` is an error message (optimized out, unreadable)
    bits: tuple[int, int] | None = None  # a bit-field's (bit offset from `address`, bit size)
    block_depth: int = 0  # of a local: lexical blocks between its declaration and the function
    aggregate: bool = False  # a struct, union, class or array (its value reads `{...}`)
    # A frame variable without a location of its own (a DW_AT_const_value, or none at all):
    # gdb's MI variable lists leave it out (its console and frame lines show it).
    locationless: bool = False
    # A struct or array with no location at all: gdb's print and info locals show it whole
    # as `<optimized out>` (value_check_printable), MI each member (even of a class with none).
    optimized_out: bool = False
    # Its declared type when `type` is the dynamic type found for it (gdb's whatis shows
    # both: `/* real type = geo::Rect * */`); None when no dynamic type was looked for.
    declared_type: str | None = None
    # Set when a pretty printer shows the value: `reference` then names its children.
    printer: PrinterView | None = None
    # A C++ class member's access (public, private, protected; None elsewhere) and whether
    # the compiler made it (`_vptr.X`): gdb's var objects group members by access.
    access: str | None = None
    artificial: bool = False
    # The value (or what a pointer or reference to it points to) is a C++ class: gdb's var
    # object child count, its bases plus one per access that has members.
    class_children: int | None = None
    # A frame variable's place among its block's parameters and variables (DWARF order): gdb's
    # -stack-list-variables follows it, a parameter gcc repeats after the locals included.
    position: int = 0
    # A parameter's value at its function's entry (gdb's NAME@entry, read through the
    # caller's call site), and whether it equals the value (gdb's `x=x@entry=5`).
    entry: VariableInfo | None = None
    entry_same: bool = False
    history: int = 0  # its number in the value history ($1) when it was recorded there
    # A Rust enum's active variant: the enum's children are its discriminant (unnamed) and
    # this variant, as gdb's var objects list them; DAP shows the variant's fields instead.
    variant: VariableInfo | None = None
    # gdb's `Python Exception <class 'X'>: MESSAGE` lines (a pretty printer that raised while
    # `value` was formatted), which it prints on its error stream, not in the value; and
    # whether the value's own printer raised when made (its value is raw, its var object refused).
    printer_errors: tuple[str, ...] = ()
    printer_refused: bool = False
    # A print that failed midway (a printer's child unreadable): what gdb printed before
    # its error (`std::vector of length 164, capacity 35 = {`); `value` holds the error.
    partial: str | None = None
    # gdb's warnings while the expression was evaluated (a value too big for a bitfield),
    # without "warning: ": its error stream shows them before the value.
    warnings: tuple[str, ...] = ()
    # The classes of the structs `value` shows with base classes and then fields, in the
    # order the text opens them: gdb's `print pretty on` heads their fields `members of T:`.
    member_classes: tuple[str, ...] = ()


class DynamicTypes(enum.Flag):
    """Where a C++ object's dynamic type (found from its vtable) replaces the static one:
    gdb's `set print object on` is all three, DAP's variables POINTERS and MEMBERS."""

    NONE = 0
    MEMBERS = enum.auto()  # `p->m` looks m up in *p's dynamic type (gdb's evaluator)
    POINTERS = enum.auto()  # pointers and references: their type, value and children
    OBJECTS = enum.auto()  # a class object printed at the top: `(geo::Rect) {...}`

    __hash__ = object.__hash__  # as VariableScope's: each value is one member (combinations too)


class StepKind(enum.Enum):
    INTO = "into"  # gdb's step
    OVER = "over"  # gdb's next
    OUT = "out"  # gdb's finish
    INSTRUCTION = "instruction"  # stepi
    # step(): gdb's `until`, a next that does not go back in loops; run_until(): gdb's
    # `until LOCATION`, to a location or until the frame returns.
    UNTIL = "until"


@dataclass(frozen=True, slots=True)
class FunctionSymbol:
    """A function of the program or a library with line info (what tracing patterns match)."""

    name: str  # qualified, without the parameter list: `ns::Counter::add`
    address: int  # runtime entry (before the prologue)
    size: int
    source: SourcePosition | None  # where its code starts
    module: str


@dataclass(frozen=True, slots=True)
class VtableInfo:
    """One vtable of a C++ object (gdb's `info vtbl`): the primary and, under multiple
    inheritance, each base subobject's own."""

    class_name: str  # the subobject's class
    address: int  # where its virtual function pointers start (the vtable pointer)
    subobject: int
    slots: list[VtableSlot]


@dataclass(frozen=True, slots=True)
class LibrarySymbolsRead:
    """A shared library whose symbols `sharedlibrary` read again (gdb's "Reading symbols
    from PATH..." lines): the file its debug info came from when that is a separate one."""

    module: Module
    debug_file: str | None  # a separate debug file (libc6-dbg's), None: the library's own
    has_debug_info: bool


@dataclass(frozen=True, slots=True)
class CoreWritten:
    """A core file written of the stopped process (gdb's `gcore`)."""

    path: str  # as written to, `~` expanded: what gdb's "Saved corefile PATH" names
    size: int  # bytes of the file (sparse: all-zero pages take no disk)
    warnings: tuple[str, ...] = ()  # gdb's, without "warning: " (memory it could not read)


# Made at their first use (model_symbols.py), still named from here.
_SYMBOL_QUERIES = frozenset({
    "CompileUnitInfo", "DebugSymbolEntry", "FunctionDeclaration", "LineRange",
    "ModuleSourceFiles", "NondebugSymbolEntry", "SourceFileEntry", "StaticProbe",
    "SymbolDomain", "SymbolSearchQuery", "SymbolSearchResult", "VtableSlot",
})  # fmt: skip

if TYPE_CHECKING:
    from aliceserver.debuggers.model_symbols import CompileUnitInfo as CompileUnitInfo
    from aliceserver.debuggers.model_symbols import DebugSymbolEntry as DebugSymbolEntry
    from aliceserver.debuggers.model_symbols import FunctionDeclaration as FunctionDeclaration
    from aliceserver.debuggers.model_symbols import LineRange as LineRange
    from aliceserver.debuggers.model_symbols import ModuleSourceFiles as ModuleSourceFiles
    from aliceserver.debuggers.model_symbols import NondebugSymbolEntry as NondebugSymbolEntry
    from aliceserver.debuggers.model_symbols import SourceFileEntry as SourceFileEntry
    from aliceserver.debuggers.model_symbols import StaticProbe as StaticProbe
    from aliceserver.debuggers.model_symbols import SymbolDomain as SymbolDomain
    from aliceserver.debuggers.model_symbols import SymbolSearchQuery as SymbolSearchQuery
    from aliceserver.debuggers.model_symbols import SymbolSearchResult as SymbolSearchResult
    from aliceserver.debuggers.model_symbols import VtableSlot as VtableSlot


def __getattr__(name: str) -> object:
    if name not in _SYMBOL_QUERIES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from aliceserver.debuggers import model_symbols

    value = getattr(model_symbols, name)
    globals()[name] = value
    return value
