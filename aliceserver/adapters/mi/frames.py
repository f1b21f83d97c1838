"""Frames as MI tuples and as gdb's console lines, and source lines from the files."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from aliceserver.adapters.gdbcommands.frames import frames_to_main
from aliceserver.adapters.gdbcommands.sourcetext import shown_line, source_lines
from aliceserver.adapters.mi import sigframes
from aliceserver.adapters.mi.output import Value, Written
from aliceserver.adapters.mi.output import value as mi_text
from aliceserver.debuggers.arch.program import program_architecture
from aliceserver.debuggers.model import READ_ERROR, StackFrame, VariableInfo, VariableScope
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

ARCH = "i386:x86-64"
# one listing's frame tuples written so far: (what makes one) -> (its text, what the key names)
WrittenFrames = dict[tuple[object, ...], tuple[Written, object]]
MAX_FRAMES = 256


def real_frame_inside(frames: list[StackFrame], level: int) -> int | None:
    """The level of the nearest real (not inlined) frame inside the frame at `level`: its
    unwinding gives the registers of the inlined calls between (gdb's inline frames pass
    each register through); None when there is none, or a tail call or signal frame
    comes first."""
    for inner in range(level - 1, -1, -1):
        frame = frames[inner]
        if frame.tail_call or frame.signal_trampoline:
            return None
        if not frame.inlined:
            return inner
    return None


def hex16(address: int) -> str:
    return f"0x{address:016x}"


def is_aggregate(info: VariableInfo) -> bool:
    """A struct, union or array: gdb's "simple values" and "scalars" leave these out."""
    return info.aggregate


def frame_arg_value(info: VariableInfo, mode: str = "scalars") -> str:
    """An argument in a frame line (gdb's `print frame-arguments`): under scalars, a value a
    printer shows as its summary (`std::vector of length 3, capacity 3 = {...}`,
    `"text"`), other structs and arrays as `...`; all shows them whole, none none."""
    if mode == "none":
        return "..."
    if mode == "all":
        return display_value(info)
    if info.printer is not None and not info.optimized_out:  # (one optimized out: `...`)
        return info.printer.summary
    return "..." if is_aggregate(info) or refers_to_aggregate(info) else display_value(info)


def refers_to_aggregate(info: VariableInfo) -> bool:
    """A reference to a class or array: gdb's `scalars` look through references."""
    text = info.type.rstrip()
    if not text.endswith("&"):
        return False
    return info.class_children is not None or "(&)[" in text or "(&&)[" in text


def _shown(info: VariableInfo) -> tuple[object, ...]:
    """What an argument's pair is made from (with_entry_values, frame_arg_value), by the
    identity of its parts: not its address, nor its children's reference."""
    entry = info.entry
    own = (id(info.name), id(info.type), id(info.value), id(info.printer), info.aggregate, info.entry_same)
    if entry is None:
        return own
    return (*own, id(entry.name), id(entry.type), id(entry.value), id(entry.printer), entry.aggregate)


def display_value(info: VariableInfo) -> str:
    """A value as MI shows it: without `print`'s `(type *)` prefix on pointers."""
    value = info.value
    prefix = f"({info.type}) "
    if value.startswith(prefix) and "::*)(" not in info.type:  # gdb's method pointers keep it
        return value[len(prefix) :]
    return value


def printer_errors(info: VariableInfo, *, printed: bool = False) -> list[str]:
    """gdb's `Python Exception` lines of the printers that raised while the value was
    formatted, for its error stream. `printed`: print, output and call look the value's own
    printer up twice (value_print, then common_val_print), so a refused one's line shows twice.
    None for a value wholly optimized out: gdb's value_check_printable runs no printer."""
    if info.value == "<optimized out>":
        return []
    lines = list(info.printer_errors)
    if printed and info.printer_refused and lines:
        lines.insert(0, lines[0])
    return lines


def evaluation_failure(info: VariableInfo) -> str | None:
    """gdb's error message for an evaluation that failed, or None when it has a value to
    show: a value wholly optimized out prints as `<optimized out>` (`$1 = <optimized out>`,
    `value="<optimized out>"`); an unreadable one fails with the bare reason."""
    if not info.error or info.value == "<optimized out>":
        return None
    text = info.value
    if text.startswith(READ_ERROR) and text.endswith(">"):
        return text[len(READ_ERROR) : -1]
    if text.startswith("<error: ") and text.endswith(">"):
        text = text[len("<error: ") : -1]
    return text


MAX_VALUE_SIZE = 65536  # gdb's max-value-size: a bigger value is not fetched to print


def whole_value_failure(session: MiSession, expression: str, info: VariableInfo) -> str | None:
    """Why gdb would not print this struct or array at all: it fetches the whole value
    first, so one over max-value-size, or one whose memory cannot be read, is an error
    (not a value with <error: ...> members)."""
    if not info.aggregate or info.address is None:
        return None
    try:
        size = int(session.evaluate(f"sizeof ({expression})").value)
    except (AliceError, ValueError):
        return None
    size %= 1 << 32  # sizeof is an int here, as gdb's: char[2147483648] reads -2147483648
    if size > MAX_VALUE_SIZE:
        return f"value requires {size} bytes, which is more than max-value-size"
    try:
        session.debugger.read_memory(info.address, size)
    except AliceError:
        return f"Cannot access memory at address {_first_unreadable(session, info.address, size):#x}"
    return None


def _first_unreadable(session: MiSession, address: int, size: int) -> int:
    """Where reading [address, address + size) fails: gdb names the first page it could not
    read, not the value's start."""
    page = address
    while page < address + size:
        try:
            session.debugger.read_memory(page, 1)
        except AliceError:
            return page
        page = (page | (_PAGE - 1)) + 1
    return address


_PAGE = 4096


def printed_value(info: VariableInfo) -> str:
    """`print`'s text of a value: a pointer wholly optimized out is `<optimized out>`, as gdb
    prints it, without the `(type *)` prefix of a pointer's value."""
    if info.optimized_out or info.value == f"({info.type}) <optimized out>" or entirely_optimized_out(info.value):
        return "<optimized out>"
    failure = evaluation_failure(info) if info.value.startswith(READ_ERROR) or info.partial is not None else None
    if failure is not None:  # gdb's print_variable_and_value (info locals, bt full) names it
        return f"{info.partial or ''}<error reading variable {info.name} ({failure})>"  # after what it printed
    return info.value


_LEAF_GONE = re.compile(r"<optimized out>(?: <repeats \d+ times>)?")
_SHAPE = re.compile(r"[{},\s]|[A-Za-z_$][\w$]* = |\[\d+\] = ")


def entirely_optimized_out(text: str) -> bool:
    """A struct or array whose every member is <optimized out>: gdb's print, info locals
    and info args (value_check_printable) show it whole, MI lists each member."""
    if not text.startswith("{") or _OPTIMIZED_OUT not in text:
        return False
    return not _SHAPE.sub("", _LEAF_GONE.sub("", text))


_OPTIMIZED_OUT = "<optimized out>"
# gdb's symtab as print_source_lines remembers it: (path, unit of SourcePosition, its name)
_Unit = tuple[str, int]  # SourcePosition.unit: (module, unit offset)
_Symtab = tuple[str, _Unit | None, str | None]


def with_entry_values(infos: list[VariableInfo], mode: str, *, mi: bool) -> list[VariableInfo]:
    """Arguments as gdb's read_frame_arg lists them under `print entry-values MODE`: each
    one's value, its NAME@entry value from the caller's call site, or both; the console
    folds an equal pair into one `x=x@entry=5` (a name that carries the fold), MI never."""
    out: list[VariableInfo] = []
    for info in infos:
        lost = info.value == _OPTIMIZED_OUT
        missing = lost or info.value.startswith(READ_ERROR)  # gdb's !val || value_optimized_out (val)
        entry = info.entry if mode != "no" and (mode != "if-needed" or missing) else None
        failed = entry is not None and entry.value.startswith(READ_ERROR)  # gdb's entryval_error
        if failed and mode in ("compact", "default") and entry is not None and entry.value == info.value:
            entry, failed = None, False  # gdb drops an entry value's error the value has already
        val: VariableInfo | None = None if mode in ("only", "preferred") else info
        folded = False
        if mode in ("compact", "default") and val is not None and entry is not None and not mi and info.entry_same:
            folded, entry = True, None
        if entry is None or failed:  # gdb's entryval NULL
            if mode == "preferred":
                val = info
            if mode in ("only", "both") or (mode == "preferred" and missing):
                entry, failed = VariableInfo(f"{info.name}@entry", info.type, _OPTIMIZED_OUT, error=True), False
        if mode in ("compact", "if-needed", "preferred") and (val is None or missing) and entry is not None and not failed:
            val = None
        if val is not None:
            out.append(replace(val, name=f"{info.name}={info.name}@entry") if folded else val)
        if entry is not None:
            out.append(entry)
    return out


@dataclass(frozen=True, slots=True)
class SourceLine:
    """A source line to print: console text, or an error for gdb's error stream."""

    text: str
    error: str = ""
    annotated: bool = False  # the text is gdb's level-1 annotation of the line (annotations.py)


class Frames:
    """Stack access for one session, cut at the program's main like gdb (unless `set
    backtrace past-main on`)."""

    def __init__(self, session: MiSession) -> None:
        self.session = session
        self._lines: dict[str, list[str] | None] = {}
        self._names: dict[str, str] = {}
        # gdb's last_source_visited, a symtab: (path, unit, symtab name)
        self._last_visited: _Symtab | None = None
        # missing files shown as `in FILE`: gdb resolved their fullname there, so `info
        # source` names it (`Located in`) from then on
        self.named_missing: set[str] = set()
        self._last_pairs: tuple[tuple[object, ...], list[VariableInfo], list[Value]] | None = None

    def file_name(self, path: str, symtab: str | None = None) -> str:
        """A source file as gdb's `file=` and console lines name it (`set filename-display`):
        by default as the debug info recorded it (relative when compiled so); `symtab`: the
        name a place's unit gives it (SourcePosition.symtab)."""
        display = self.session.settings.get("filename-display")
        if display == "absolute":
            return path
        if display == "basename":
            return os.path.basename(path)
        if symtab is not None:
            return symtab
        name = self._names.get(path)
        if name is None:
            try:
                name = self.session.debugger.source_name(path)
            except AliceError:
                return path
            self._names[path] = name
        return name

    def stack(self, tid: int, start: int = 0, count: int | None = None, *, arguments: bool = False) -> list[StackFrame]:
        """`arguments`: frame 0's are shown next (a stop's frame), made in the same handoff."""
        depth = None if count is None else start + count  # None: every frame, as gdb
        frames = self.session.debugger.stack_trace(tid, 0, depth, arguments=arguments)
        if self.session.settings.get("backtrace past-main") != "on":
            frames = frames_to_main(frames)
        end = len(frames) if count is None else start + count
        return frames[start:end]

    def find(self, tid: int, wanted: Callable[[StackFrame], bool]) -> StackFrame | None:
        """The innermost frame `wanted` accepts, unwinding no deeper than it takes: the
        frame of a variable object is nearly always at the top, and every frame shown costs
        its unit's line table (a whole stack of CPython: 0.3 s the first time)."""
        count = 1
        while True:
            frames = self.stack(tid, 0, count)
            found = next((frame for frame in frames if wanted(frame)), None)
            if found is not None or len(frames) < count or count >= MAX_FRAMES:
                return found
            count *= 4

    def frame(self, tid: int, level: int, *, arguments: bool = False) -> StackFrame:
        frames = self.stack(tid, level, 1, arguments=arguments and level == 0)
        if not frames:
            raise AliceError("No frame at level %d." % level)
        return frames[0]

    def args(self, tid: int, level: int, *, aggregate_values: bool = False, entries: bool = True) -> list[VariableInfo]:
        """The frame's arguments; frames show aggregate ones as `...` (gdb's `print
        frame-arguments scalars`), so their values are only made when asked for."""
        try:
            return self.session.debugger.frame_variables(
                tid, level, VariableScope.ARGUMENTS, aggregate_values=aggregate_values, entry_values=entries
            )
        except AliceError:
            return []

    def shown_args(
        self, tid: int, level: int, *, mi: bool, aggregate_values: bool = False, arguments: str = "scalars"
    ) -> list[VariableInfo]:
        """The arguments with their NAME@entry values as frames list them (`print entry-values`);
        none under `print frame-arguments` none or presence (gdb's print_args: not read)."""
        if arguments in ("none", "presence"):
            return self.args(tid, level, entries=False)
        mode = self.session.settings.get("print entry-values") or "default"
        return with_entry_values(self.args(tid, level, aggregate_values=aggregate_values), mode, mi=mi)

    def arg_pairs(self, tid: int, level: int) -> list[Value]:
        infos = self.args(tid, level)
        mode = self.session.settings.get("print entry-values") or "default"
        # Threads parked alike are given the same descriptions (twinthreads.py) but for an
        # address in their own stack: their pairs made once (the last ones kept, with the
        # descriptions they are made from, by what of them the pairs show)
        key = (mode, *map(_shown, infos))
        if self._last_pairs is not None and self._last_pairs[0] == key:
            return self._last_pairs[2]
        result: list[Value] = []
        for info in with_entry_values(infos, mode, mi=True):
            value = frame_arg_value(info)  # empty (a pointer under `print address off`): gdb's field_stream omits it
            result.append({"name": info.name, "value": value} if value else {"name": info.name})
        self._last_pairs = (key, infos, result)
        return result

    def tuple(self, frame: StackFrame, tid: int, *, level: bool = True, args: bool = False,
              arch: str | None = None, pairs: list[Value] | None = None) -> dict[str, Value]:  # fmt: skip
        """gdb's frame={level,addr,func,args,file,fullname,line,arch} (or from= without source);
        no addr under `print address off` (gdb's print_frame asks addressprint first).
        `arch`: the program's, when the caller knows it (one look for a whole stack);
        `pairs`: its arguments' (arg_pairs), where the caller has them."""
        out: dict[str, Value] = {}
        if level:
            out["level"] = str(frame.level)
        # gdb's print_frame_info prints a label frame's pc (print_pc) whatever addressprint says
        if self.session.settings.get("print address") == "on" or sigframes.is_label_frame(frame):
            out["addr"] = hex16(frame.pc)
        out["func"] = sigframes.label(frame)
        if sigframes.is_label_frame(frame):  # gdb's dummy or sigtramp frame: nothing more to say
            return out
        if args:
            out["args"] = self.arg_pairs(tid, frame.level) if pairs is None else pairs
        if frame.source is not None and frame.source.line:
            out["file"] = self.file_name(frame.source.path, frame.source.symtab)
            out["fullname"] = self.fullname(frame.source.path, frame.source.symtab_fullname)
            out["line"] = str(frame.source.line)
        elif frame.module and self.library_of(frame):
            out["from"] = frame.module
        out["arch"] = arch if arch is not None else program_architecture(self.session.debugger).name
        return out

    def written_tuple(self, frame: StackFrame, tid: int, arch: str, seen: WrittenFrames) -> Value:
        """`tuple(frame, tid, args=True, arch=arch)` written as MI text once for the threads
        that show the same frame (`seen`: one listing's): 1,000 threads parked alike differ
        in their ids and names, not in their frame 0's text (its building and writing were
        half of -thread-info's own time). The same place (the StackFrame's fields the tuple
        shows, its source position itself) and the same arguments' pairs (arg_pairs gives
        threads whose descriptions are shared the same list) make the same text."""
        if sigframes.is_label_frame(frame):
            return self.tuple(frame, tid, args=True, arch=arch)
        pairs = self.arg_pairs(tid, frame.level)
        key = (frame.level, frame.pc, frame.function, id(frame.source), frame.module, id(pairs))
        known = seen.get(key)
        if known is not None:
            return known[0]
        text = Written(mi_text(self.tuple(frame, tid, args=True, arch=arch, pairs=pairs)))
        seen[key] = (text, (frame.source, pairs))  # held: their ids stay theirs meanwhile
        return text

    def describe(self, frame: StackFrame, tid: int, *, with_pc: bool, what: str = "location",
                 arguments: str | None = None) -> str:
        """`0x... in func (a=1) at prog.c:13` as the console shows a frame: `what` is gdb's
        print_what (location-and-address: always the pc, short-location: no file), and
        `arguments` overrides `print frame-arguments` (bt -frame-arguments)."""
        if sigframes.is_label_frame(frame):
            return sigframes.label(frame)  # <function called from gdb>, <signal handler called>
        mode = arguments or self.session.settings.get("print frame-arguments")
        infos = self.shown_args(tid, frame.level, mi=False, aggregate_values=mode == "all", arguments=mode)
        if mode == "presence":
            args = "..." if infos else ""
        else:
            args = ", ".join(f"{info.name}={frame_arg_value(info, mode)}" for info in infos)
        with_pc = with_pc or what == "location-and-address"
        has_line = frame.source is not None and bool(frame.source.line)
        shown = (with_pc or not has_line) and self.session.settings.get("print address") == "on"
        text = f"{hex16(frame.pc)} in " if shown else ""  # gdb's print_frame
        text += f"{frame.function or '??'} ({args})"
        if what == "short-location":
            return text
        if frame.source is not None and frame.source.line:
            text += f" at {self.file_name(frame.source.path, frame.source.symtab)}:{frame.source.line}"
        elif self.library_of(frame):
            text += f" from {frame.module}"
        return text

    def library_of(self, frame: StackFrame) -> bool:
        """Whether the frame's code is a shared library's: gdb says `from LIB` for those
        only, never for the program itself (a PLT stub, a function without debug info)."""
        if not frame.module:
            return False
        try:
            return not any(m.is_main and m.path == frame.module for m in self.session.debugger.modules())
        except AliceError:
            return True

    def source_line(self, frame: StackFrame) -> str:
        """`LINE\\tTEXT\\n` of the frame's line, or gdb's words for a missing file."""
        return self.source_report(frame).text

    def source_report(self, frame: StackFrame, *, mid: bool = False) -> SourceLine:
        """The frame's source line as gdb prints it at a stop or for `frame`: its text, or
        for a missing file `LINE\\tin FILE` (console), except the first time in a row that
        file is visited, when it is an error `LINE\\tFILE: No such file or directory.`.
        Under `set annotate 1` its annotation instead (`mid`: a stop mid-line's)."""
        if frame.source is None or not frame.source.line:
            return SourceLine("")
        line = frame.source.line
        self.session.command_memory.listed = (frame.source.path, line)  # as gdb's print_source_lines
        missing = self.missing_or(frame.source.path, line, frame.source.symtab, frame.source.unit)
        if missing is not None:
            return missing
        from aliceserver.adapters.mi.annotations import source_annotation

        annotation = source_annotation(self.session, frame.source.path, line, frame.pc, mid=mid)
        if annotation is not None:
            return SourceLine(annotation, annotated=True)
        text = self.line_text(frame.source.path, line)
        name = self.file_name(frame.source.path, frame.source.symtab)
        return SourceLine(f"{line}\tin {name}\n" if text is None else f"{line}\t{text}\n")

    def forget_visited(self) -> None:
        """New symbols (a core opened): the next missing file says why again, as gdb's
        forget_cached_source_info."""
        self._last_visited = None

    def forget_visited_in(self, modules: Collection[str]) -> None:
        """Those libraries' symbols go (gdb frees their objfiles at a detach and at a run's
        start): a missing file of theirs visited last says why again, in a new symtab."""
        last = self._last_visited
        if last is not None and last[1] is not None and last[1][0] in modules:
            self._last_visited = None

    def missing_or(
        self, path: str, line: int, symtab: str | None = None, unit: _Unit | None = None
    ) -> SourceLine | None:
        """gdb's print_source_lines for a file that cannot be read (None: it can): only
        its first visit in a row to a symtab (a file of one unit: a header is in several)
        says why, the later ones say `in FILE`."""
        last = self._last_visited
        # A place of unknown unit (`list main`, before a stop there) is in the symtab shown.
        first_visit = last is None or last[0] != path or (None not in (unit, last[1]) and last[1] != unit)
        if not first_visit and last is not None:
            unit, symtab = unit or last[1], symtab or last[2]
        self._last_visited = (path, unit, symtab)
        if self.file_lines(path) is not None:
            return None
        name = self.file_name(path, symtab)
        if first_visit:
            return SourceLine("", f"{line}\t{name}: No such file or directory.\n")
        self.named_missing.add(path)
        return SourceLine(f"{line}\tin {name}\n")

    def fullname(self, path: str, missing: str | None = None) -> str:
        """gdb's fullname: where the file is here (substitute-path, source directories);
        `missing`: gdb's for a place's file found nowhere (SourcePosition.symtab_fullname)."""
        located = self.session.debugger.source_paths.locate(path)
        if missing is not None and not located.found and not located.rewritten:
            return missing
        return located.fullname

    def line_text(self, path: str, line: int) -> str | None:
        lines = self.file_lines(path)
        if lines is None or not 1 <= line <= len(lines):
            return None
        return shown_line(lines[line - 1])

    def file_lines(self, path: str) -> list[str] | None:
        """The lines of the debug info's file `path`, read where it is here."""
        located = self.session.debugger.source_paths.locate(path)
        if not located.found:
            return None
        where = located.fullname
        if where not in self._lines:
            try:
                with open(where, "rb") as handle:
                    data = handle.read()
                self._lines[where] = source_lines(data.decode("utf-8", "surrogateescape"))
            except OSError:
                self._lines[where] = None
        return self._lines[where]
