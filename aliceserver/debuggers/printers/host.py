"""One debugging session's printers, owned by the engine: scripts loaded once per image at
first need, and values formatted through them within a time budget.

Light to import (a C program never loads more of printers/ than this module).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from aliceserver.debuggers.printers.autoload import AutoLoad
from aliceserver.debuggers.symbols.dwarf.format import (
    FormatOptions,
    PrintAborted,
    _Formatter,
    format_value,
)
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    PointerType,
    ReferenceType,
    StructType,
    Type,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value

if TYPE_CHECKING:
    from aliceserver.debuggers.model import PrinterView
    from aliceserver.debuggers.printers.children import Child
    from aliceserver.debuggers.printers.commands import ScriptOutput
    from aliceserver.debuggers.printers.context import Call, Target
    from aliceserver.debuggers.printers.objfiles import PrinterSession
    from aliceserver.debuggers.printers.paging import Cursor
    from aliceserver.debuggers.printers.watchdog import Watchdog
    from aliceserver.debuggers.printers.xmethods import XMethods

log = logging.getLogger(__name__)

Tell = Callable[[str, str], None]  # (category: "warning" or "console", text)

BUDGET_SECONDS = 5.0  # per printed value: a printer over garbage is cut off, not waited for
_MAX_CURSORS = 256  # values at one stop whose children iterators are kept between pages


class Images(Protocol):
    """What the engine tells the printers: its images and a frame's names and types."""

    def paths(self) -> list[str]:
        """The program's image first, then its shared libraries, by their paths."""
        ...

    def target(self, frame: FrameContext) -> Target: ...


class PrinterHost:
    def __init__(self, images: Images, auto_load: AutoLoad | None = None, tell: Tell | None = None,
                 budget: float = BUDGET_SECONDS) -> None:
        """`auto_load`: the session's safe path (and settings); `tell`: where gdb's
        warnings about declined or missing scripts go."""
        self._images = images
        self._budget = budget
        self.auto_load = auto_load if auto_load is not None else AutoLoad()
        self._tell = tell
        self._session: PrinterSession | None = None
        self._loaded: set[str] = set()
        self._paths_key: tuple[str, ...] = ()
        self.script_search: Callable[[], list[str]] = list  # where a section's script names are looked for
        self._told_none = False
        self._watchdog: Watchdog | None = None
        self.aborted = False  # the last `format` failed at an unreadable child
        self.partial = ""  # what it printed before that child
        self.printed = False  # a printer wrote the value itself (its `<error...>` is a value)
        # The last `format`'s `Python Exception` lines (gdb prints them on its error stream)
        # and whether the value's own printer raised when made (gdb refuses its var object).
        self.errors: list[str] = []
        self.refused = False
        self._cursors: dict[object, Cursor] = {}  # value key -> where its children stopped

    @property
    def session(self) -> PrinterSession:
        if self._session is None:
            from aliceserver.debuggers.printers.objfiles import PrinterSession

            self._session = PrinterSession()
        return self._session

    @property
    def started(self) -> bool:
        """Whether printers may be loaded: until then none takes a scalar (a C program's)."""
        return self._session is not None

    def carry_over(self, previous: PrinterHost) -> None:
        """A new program's printers keep what the user gave the last one's (a `source
        printer.py` before `run`); its images' scripts load anew."""
        if previous._session is not None:
            self._session = previous._session.for_new_program()
        self.script_search = previous.script_search
        self.auto_load, self._tell = previous.auto_load, previous._tell

    def format(self, value: Value, options: FormatOptions) -> str:
        """`value` as gdb prints it, through the printers where one takes it."""
        self.aborted, self.errors, self.refused, self.partial, self.printed = False, [], False, "", False
        call = self._ready(value)
        if call is None:
            return format_value(value, options)
        from dataclasses import replace

        from aliceserver.debuggers.printers.context import entered
        from aliceserver.debuggers.printers.render import render

        with entered(call):
            try:
                text = format_value(value, replace(options, pretty=render))
            except PrintAborted as exc:  # gdb's print fails with the reason; its children
                self.aborted = True  # are still browsed (each an error), as gdb's var objects'
                self.partial = exc.partial
                return f"<error: {exc}>"
            finally:
                self.errors, self.refused = call.errors, call.refused
            self.printed = call.printed_top
        # gdb's value_check_printable (print, info locals, frame lines) runs no printer on a
        # value wholly optimized out; the errors stay for what runs it (common_val_print)
        return "<optimized out>" if self.errors and value.optimized_out else text

    def view(self, value: Value, options: FormatOptions, *, count: bool = True) -> PrinterView | None:
        """How the printer that takes `value` shows it (None: no printer takes it)."""
        call = self._ready(value)
        if call is None:
            return None
        from dataclasses import replace

        from aliceserver.debuggers.printers.children import view
        from aliceserver.debuggers.printers.context import entered
        from aliceserver.debuggers.printers.render import render

        opts = replace(options, pretty=render)
        with entered(call):
            return view(value, opts, _Formatter(opts).value, count=count)

    def children(
        self, value: Value, start: int, count: int | None, options: FormatOptions, key: object = None
    ) -> list[Child]:
        """Items `start` .. `start + count` of its printer's children (only those are read);
        `key` names the value at this stop: its next page continues where this one ends."""
        call = self._ready(value)
        if call is None:
            return []
        from dataclasses import replace

        from aliceserver.debuggers.printers.children import page
        from aliceserver.debuggers.printers.context import entered
        from aliceserver.debuggers.printers.paging import Cursor
        from aliceserver.debuggers.printers.render import render

        cursor = None
        if key is not None:
            cursor = self._cursors.get(key)
            if cursor is None:
                if len(self._cursors) >= _MAX_CURSORS:  # the oldest go (MI evaluates anew)
                    del self._cursors[next(iter(self._cursors))]
                cursor = self._cursors[key] = Cursor()
        with entered(call):
            return page(value, start, count, replace(options, pretty=render), cursor)

    def forget_pages(self) -> None:
        """The program moved or its memory changed: pages start over from the printers."""
        self._cursors.clear()

    def _ready(self, value: Value) -> Call | None:
        """A printer call for `value`, its images' scripts loaded; None: no printers."""
        if self._session is None and not _may_need_printers(value):
            return None
        call = self._call(value.ctx)
        self._load_new_images(call)
        if not any(self.session.printer_lists()):
            return None
        call.deadline = time.monotonic() + self._budget
        return call

    def type_name(self, t: Type, frame: FrameContext) -> str | None:
        """`t`'s name as gdb's whatis shows it through the scripts' type printers (None:
        no type printer is registered, or a C program)."""
        if self._session is None and not _may_need_printers_type(t, pointers=True):
            return None
        call = self.prepared_call(frame)
        from aliceserver.debuggers.printers.context import entered
        from aliceserver.debuggers.printers.typenames import any_printers, recognizer, shown_name

        if not any_printers(self.session):
            return None
        with entered(call):
            recognize = recognizer()
            return shown_name(t, recognize) if recognize is not None else None

    def methods(self, frame: FrameContext) -> XMethods:
        """C++ methods for the expression evaluator at `frame`: the scripts' xmethods."""
        from aliceserver.debuggers.printers.xmethods import XMethods

        return XMethods(self, frame)

    def prepared_call(self, frame: FrameContext) -> Call:
        """A context for running scripts at `frame`, the images' scripts loaded."""
        call = self._call(frame)
        self._load_new_images(call)
        call.deadline = time.monotonic() + self._budget
        return call

    def run_script(self, path: str | None, source: str | None, frame: FrameContext | None) -> ScriptOutput:
        """A user's `source FILE.py` (`path`) or `python` code (`source`): run now in this
        session's `__main__`, what it prints returned. OSError: the file is unreadable."""
        from aliceserver.debuggers.printers.commands import run_user_code

        call = self._call(frame)
        if frame is not None:
            self._load_new_images(call)
        if path is not None:
            with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                source = handle.read()
        scope = self.session.python_scope
        scope["__file__"] = path or "<string>"
        return run_user_code(call, source or "", path or "<string>", scope)

    def _call(self, frame: FrameContext | None) -> Call:
        from aliceserver.debuggers.printers.context import Call

        if self._watchdog is None:
            from aliceserver.debuggers.printers.watchdog import Watchdog

            self._watchdog = Watchdog()
        target = self._images.target(frame) if frame is not None else None
        return Call(self.session, target, watchdog=self._watchdog)

    def _load_new_images(self, call: Call) -> None:
        paths = tuple(p for p in self._images.paths() if p.startswith("/"))
        if paths == self._paths_key:
            return
        self._paths_key = paths
        self.session.forget_types()
        if self.session.program is None and paths:
            self.session.program = paths[0]
        for path in paths:
            if path in self._loaded:
                continue
            self._loaded.add(path)
            self._load_scripts(path, call)
        if not any(self.session.printer_lists()) and not self._told_none:
            self._told_none = True
            log.info("no pretty printers are installed for this program's images "
                     "(%s): values are shown raw", ", ".join(paths[:3]))

    def _load_scripts(self, path: str, call: Call) -> None:
        """Run the image's scripts that the safe path allows; tell of the others as gdb."""
        from aliceserver.debuggers.printers.loader import judged, record, run_script

        allowed, notes = judged(path, self.script_search(), self.auto_load)
        self._told(notes)
        objfile = self.session.objfile(path)
        for script in allowed:
            record(self.auto_load, script, loaded=True)  # gdb says Yes even if it raises
            started = time.monotonic()
            try:
                run_script(script, call, objfile)
            except Exception as exc:  # a broken script: its printers are missing, no more
                log.warning("gdb script %s failed: %s", script.origin, exc, exc_info=exc)
                continue
            log.info("loaded gdb script %s for %s in %.0f ms", script.origin, path,
                     (time.monotonic() - started) * 1000)

    def _told(self, notes: list[tuple[str, str]]) -> None:
        if self._tell is not None:
            for category, text in notes:
                self._tell(category, text)


def _may_need_printers(value: Value) -> bool:
    """A C++ or Rust aggregate: C programs never load the printers."""
    return _may_need_printers_type(value.type)


def _may_need_printers_type(t: Type, *, pointers: bool = False) -> bool:
    t = strip(t)
    for _ in range(4):
        if isinstance(t, ReferenceType) or (pointers and isinstance(t, PointerType)):
            t = strip(t.target)
        elif isinstance(t, ArrayType):
            t = strip(t.element)
        else:
            break
    return isinstance(t, StructType) and t.cplus

