"""Fuzz the C expression evaluator and the debug console on a real stopped program.

`ExpressionTarget`: the ptrace engine (in this process) stopped in `show_values` of
tests/programs/src_basic.c, where structs, pointers, arrays, enums, doubles and strings are
in scope; generated expressions (grammar-built from those names, random text, unicode)
are evaluated in each of the first frames. Only typed errors (AliceError) may come out,
and none may be an internal error: no message saying so, no ERROR logged by the package.

`ConsoleTarget`: the DAP session (in this process, over a socket pair, same engine) and
its debug console (`evaluate` with context `repl`): generated gdb-style lines (bt, info,
p/FMT, x/NFU, help, backtick commands) must each get a response that is not an internal
error.
"""

from __future__ import annotations

import itertools
import logging
import queue
import re
import socket
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from aliceserver.adapters.dap import DapServerConfig, build_dap_server
from aliceserver.debuggers.events import Exited, Stopped
from aliceserver.debuggers.model import LaunchConfig
from aliceserver.errors import AliceError
from aliceserver.serve import ptrace_debugger
from aliceserver.transports.framed import FramedTransport
from aliceserver.transports.tcp import SocketTransport
from tests.fuzz.dap_target import FuzzFailure, _error_id, _prepare_live
from tests.fuzz.wire import RawWire
from tests.support.build import marker_line

if TYPE_CHECKING:
    from tests.fuzz.targets import FuzzContext

NAMES = ("count", "label", "op", "copy", "hue", "values", "vp", "scaled", "letter", "result",
         "k", "global_counter", "static_counter", "global_text", "numbers", "main", "leaf",
         "RED", "GREEN", "BLUE", "nosuch", "$rip", "$rsp", "$pc", "$sp", "$eax", "$xmm0",
         "$_", "$1", "errno")  # fmt: skip
TYPES = ("int", "char", "unsigned char", "long", "unsigned long long", "double", "float",
         "struct outer", "struct inner", "struct pair", "enum color", "void", "size_t",
         "struct nosuch", "int *", "char **", "struct outer *", "void *")  # fmt: skip
BINARY = ("+", "-", "*", "/", "%", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "|",
          "^", "&&", "||", ",", "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=",
          "^=")  # fmt: skip
LITERALS = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["0", "1", "-1", "0x7fffffff", "0xffffffffffffffff", "0x10000000000000000",
                     "2147483648", "1u", "1ul", "1ull", "077", "09", "0b101", "1e308", "1e309",
                     "1.5f", ".5", "'a'", "'\\n'", "'\\x41'", "'\\777'", "''", "'ab'", '"str"',
                     '"\\x"', '"unterminated', "'", "1.0/0", "NAN"]),  # fmt: skip
)
LEAVES = st.one_of(st.sampled_from(NAMES), LITERALS)


def _grow(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, st.sampled_from(BINARY), children).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(st.sampled_from(["-", "+", "!", "~", "*", "&", "++", "--", "sizeof "]), children)
        .map("".join),
        st.tuples(children, st.sampled_from(["++", "--"])).map("".join),
        children.map(lambda c: f"({c})"),
        st.tuples(children, children).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(children, st.sampled_from([".", "->"]),
                  st.sampled_from(["id", "in", "x", "y", "ratio", "name", "nope", "a"]))
        .map("".join),  # fmt: skip
        st.tuples(st.sampled_from(TYPES), children).map(lambda t: f"({t[0]}){t[1]}"),
        st.sampled_from(TYPES).map(lambda t: f"sizeof({t})"),
        st.tuples(children, children, children).map(lambda t: f"{t[0]} ? {t[1]} : {t[2]}"),
        st.tuples(children, st.integers(-3, 5000)).map(lambda t: f"{t[0]}@{t[1]}"),
        st.tuples(children, children).map(lambda t: f"{t[0]}({t[1]})"),
    )


GRAMMAR = st.recursive(LEAVES, _grow, max_leaves=8)
ALPHABET = "copvaluesn0123456789 +-*/%&|^!~<>=?:()[].,'\"\\$_xXuUlLfF#@{};`"
EXPRESSIONS = st.one_of(
    GRAMMAR, GRAMMAR, GRAMMAR,
    st.text(alphabet=ALPHABET, max_size=40),
    st.text(max_size=20),
    st.sampled_from(["(" * 3000 + "1" + ")" * 3000, "-" * 5000 + "1", "!" * 5000 + "1",
                     "*" * 3000 + "op", "1" + "+1" * 5000, "values" + "[0]" * 500]),
)  # fmt: skip


class _ErrorLog(logging.Handler):
    """Counts ERROR records of the package: an exception that reached a catch-all."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class ExpressionTarget:
    name = "expr"

    def __init__(self, ctx: FuzzContext) -> None:
        self.stats: Counter[str] = Counter()
        self.errors = _ErrorLog()
        logging.getLogger("aliceserver").addHandler(self.errors)
        self.program = ctx.builder.build("src_basic")
        self.source = ctx.builder.source("src_basic")
        self.debugger, self.events, self.thread = self._start()

    def _start(self) -> tuple[Any, Any, int]:
        debugger = ptrace_debugger()
        events = debugger.subscribe()  # before the launch: its events are ours
        debugger.launch(LaunchConfig(str(self.program), cwd=str(self.program.parent)))
        for place in debugger.resolve_location(f"{self.source}:{marker_line(self.source, 'vars')}"):
            debugger.insert_breakpoint(place.address)
        debugger.resume()
        return debugger, events, _first_stop(events)

    def strategy(self) -> st.SearchStrategy[Any]:
        return st.tuples(EXPRESSIONS, st.integers(0, 3), st.sampled_from([None, "x", "d", "c", "a", "z", "q"]))

    def check(self, case: tuple[str, int, str | None]) -> None:
        expression, level, fmt = case
        del self.errors.records[:]
        try:
            value = self.debugger.evaluate(expression, self.thread, level, fmt)
        except AliceError as error:
            self.stats[type(error).__name__] += 1
            if "internal error" in str(error).lower():
                raise FuzzFailure(f"internal error for {expression!r}: {error}") from error
        else:
            self.stats["value"] += 1
            if not isinstance(value.value, str):
                raise FuzzFailure(f"{expression!r}: a value that is not text: {value!r}")
        if self.errors.records:
            record = self.errors.records[0]
            raise FuzzFailure(f"{expression!r} logged an error: {record.getMessage()}\n"
                              f"{logging.Formatter().formatException(record.exc_info) if record.exc_info else ''}")  # fmt: skip
        self._still_stopped(expression)

    def _still_stopped(self, expression: str) -> None:
        """A call may legitimately leave the program stopped elsewhere (a signal or a
        breakpoint in the called function: gdb's default, infcall.py), but only with a
        Stopped event saying so; then the program is started again at `show_values`, so
        later cases and finish() see the stop they were written for."""
        reported = _drain(self.events)
        if not reported:
            frames = self.debugger.stack_trace(self.thread, 0, 1)
            if frames and frames[0].function == "show_values":
                return
            reported = _drain(self.events, 2.0)
            if not reported:
                where = frames[0].function if frames else None
                raise FuzzFailure(f"{expression!r} moved the stop to {where} without a Stopped event")
        self.stats["left stopped"] += 1
        self.debugger.close()
        self.debugger, self.events, self.thread = self._start()

    def finish(self) -> None:
        frames = self.debugger.stack_trace(self.thread, 0, 1)
        if frames[0].function != "show_values":
            raise FuzzFailure(f"after fuzzing: stopped in {frames[0].function}")
        # (The cases may have assigned to anything: ask what none can change.)
        int(self.debugger.evaluate("count", self.thread, 0).value)
        size = self.debugger.evaluate("sizeof(struct outer)", self.thread, 0).value
        if size != "32":
            raise FuzzFailure(f"after fuzzing: sizeof(struct outer) is {size}")

    def close(self) -> None:
        logging.getLogger("aliceserver").removeHandler(self.errors)
        self.debugger.close()


def _drain(events: Any, wait: float = 0.0) -> list[Stopped]:
    """The Stopped events queued now; with `wait`, up to that many seconds for one."""
    import time

    deadline = time.monotonic() + wait
    stops: list[Stopped] = []
    while True:
        left = deadline - time.monotonic()
        try:
            event = events.get(timeout=left) if left > 0 and not stops else events.get_nowait()
        except queue.Empty:
            return stops
        if isinstance(event, Stopped):
            stops.append(event)


def _first_stop(events: Any) -> int:
    while True:
        event = events.get(timeout=30)
        if isinstance(event, Stopped):
            return int(event.thread_id)
        if isinstance(event, Exited):
            raise FuzzFailure(f"the program exited before its breakpoint: {event!r}")


CONSOLE_WORDS = ("bt", "backtrace", "where", "info", "i", "p", "print", "output", "call", "x",
                 "help", "`bt", "`info", "`p", "`x", "`", "`nosuch", "frame", "set var",
                 "shell", "!", "quit")  # fmt: skip
INFO_WORDS = ("registers", "reg", "r", "all-registers", "threads", "th", "locals", "args",
              "breakpoints", "b", "frame", "sharedlibrary", "x", "")  # fmt: skip
CONSOLE_LINES = st.one_of(
    st.tuples(st.sampled_from(["bt", "backtrace", "where", "`bt"]),
              st.sampled_from(["", "0", "1", "3", "-1", "99999999999999999999", "x", "full"]))
    .map(" ".join),
    st.tuples(st.sampled_from(["info", "i", "`info"]), st.sampled_from(INFO_WORDS),
              st.sampled_from(["", "rip", "$rsp", "nosuch", "rax rbx", "xmm0", "1"])).map(" ".join),
    st.tuples(st.sampled_from(["p", "print", "output", "call", "`p"]),
              st.sampled_from(["", "/x", "/d", "/z", "/c", "/a", "/t", "/o", "/u", "/q", "/", "/xx"]),
              EXPRESSIONS).map(lambda t: f"{t[0]}{t[1]} {t[2]}"),
    st.tuples(st.sampled_from(["x", "`x"]),
              st.sampled_from(["", "/4xw", "/8xb", "/2xg", "/0x", "/4097xb", "/99999999999xg",
                               "/s", "/i", "/3c", "/-1x", "/x", "/xw4", "/4z"]),
              st.sampled_from(["$sp", "$rip", "&values", "values", "label", "0", "-1", "op",
                               "0xffffffffffffffff", "nosuch", "", "&count"]))
    .map(lambda t: f"{t[0]}{t[1]} {t[2]}"),  # fmt: skip
    st.tuples(st.sampled_from(CONSOLE_WORDS), st.text(max_size=12)).map(" ".join),
    EXPRESSIONS,
    st.text(max_size=30),
)


class ConsoleTarget:
    name = "console"

    def __init__(self, ctx: FuzzContext) -> None:
        self.stats: Counter[str] = Counter()
        program = ctx.builder.build("src_basic")
        source = ctx.builder.source("src_basic")
        server = build_dap_server(DapServerConfig(debugger_factory=ptrace_debugger))
        ours, theirs = socket.socketpair()
        transport = SocketTransport(theirs, FramedTransport)
        self._thread = threading.Thread(target=server.serve, args=(transport,), daemon=True)
        self._thread.start()
        self._socket = ours

        def close() -> None:
            try:
                ours.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            ours.close()

        self.wire = RawWire(ours.recv, ours.sendall, close, ctx.schema)
        self._seqs = itertools.count(1_000)
        self.cases: list[str] = []  # the console lines sent, in order
        self.last_answer: dict[str, Any] = {}
        self.thread = _prepare_live(self.wire, program, str(source), marker_line(source, "vars"))
        self.frames = [int(f["id"]) for f in self._call("stackTrace", {"threadId": self.thread})["stackFrames"]]

    def _call(self, command: str, arguments: dict[str, Any]) -> dict[str, Any]:
        seq = next(self._seqs)
        self.wire.request(seq, command, arguments)
        answer = self.wire.response_to(seq, 30.0)
        if answer is None:
            raise FuzzFailure(f"no response to {command} {arguments!r}"[:500])
        if _error_id(answer) == 9000:
            raise FuzzFailure(f"internal error for {arguments!r}: {answer.get('message')}"[:2000])
        if self.wire.problems:
            problems, self.wire.problems[:] = list(self.wire.problems), []
            raise FuzzFailure("invalid messages from the adapter:\n" + "\n".join(problems[:5]))
        self.stats["ok" if answer.get("success") else "error"] += 1
        self.last_answer = answer  # the whole reply, error message included, for a failure's text
        body = answer.get("body")
        return body if isinstance(body, dict) and answer.get("success") else {}

    def strategy(self) -> st.SearchStrategy[Any]:
        return st.tuples(CONSOLE_LINES, st.integers(0, 3))

    def check(self, case: tuple[str, int]) -> None:
        line, level = case
        self.cases.append(line)
        arguments: dict[str, Any] = {"expression": line, "context": "repl"}
        if level < len(self.frames) and level < 3:
            arguments["frameId"] = self.frames[level]
        self._call("evaluate", arguments)

    def finish(self) -> None:
        # frame ids as of now: a generated call may have stopped in the called function (a
        # signal, a breakpoint), a new stop whose frames replace the first one's
        listed = self._call("stackTrace", {"threadId": self.thread}).get("stackFrames") or []
        frame = int(listed[0]["id"]) if listed else self.frames[0]
        bt = self._call("evaluate", {"expression": "bt", "frameId": frame, "context": "repl"})
        if "show_values" not in bt.get("result", ""):
            raise FuzzFailure(f"after fuzzing ({self.cases[-8:]!r} last), bt says {self.last_answer!r}"[:3000])
        # (The cases may have written anywhere in the program's memory: ask what none can.)
        size = self._call("evaluate", {"expression": "p sizeof(struct outer)", "frameId": frame,
                                       "context": "repl"})  # fmt: skip
        if not re.fullmatch(r"\$\d+ = 32", str(size.get("result"))):  # gdb's print, into the history
            raise FuzzFailure(f"after fuzzing, p sizeof(struct outer) says {size!r}")

    def close(self) -> None:
        try:
            self.wire.request(next(self._seqs), "disconnect", {"terminateDebuggee": True})
            self.wire.response_to(-1, 0.5)
        finally:
            self.wire.close()
            self._thread.join(timeout=15)
