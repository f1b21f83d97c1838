"""Hypothesis strategies for hostile DAP input: frames that are well formed, garbled inside
an intact frame, or break the framing itself, cut into arbitrary writes.

Each generated `Piece` says what the adapter owes for it, so a case can be checked: every
intact frame before the first framing break gets exactly one response, in order (with the
request's own `seq` when it had a usable one); after a break only liveness is checked.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.fuzz.wire import frame


class Owed(enum.Enum):
    RESPONSE = "response"  # a request with an integer seq: a response with that request_seq
    SOME_RESPONSE = "some"  # intact frame, unusable message: one error response
    NOTHING = "nothing"  # a client's response or event: no reply
    BREAKS = "breaks"  # the framing is damaged: what follows may be swallowed


# Placeholders in generated requests, replaced when sent by what the session has: the
# stopped thread's id and the test program's source path.
THREAD = "@THREAD@"
SOURCE = "@SOURCE@"


@dataclass(frozen=True)
class Piece:
    data: bytes  # the bytes to send; for a placeholder request, its JSON body (unframed)
    owed: Owed
    seq: int | None = None
    command: str | None = None
    template: bool = False  # `data` is a body with placeholders: framed when sent

    def __repr__(self) -> str:  # hypothesis prints failing cases: keep them readable
        return f"Piece({self.owed.value}, {self.data[:160]!r}{'...' if len(self.data) > 160 else ''})"

    def wire_bytes(self, values: Mapping[str, str]) -> bytes:
        if not self.template:
            return self.data
        body = self.data
        for name, value in values.items():
            body = body.replace(f'"{name}"'.encode(), value.encode())
        return frame(body)


@dataclass(frozen=True)
class Case:
    pieces: tuple[Piece, ...]
    cuts: tuple[int, ...]  # write boundaries (offsets into the concatenated bytes)

    def writes(self, values: Mapping[str, str] | None = None) -> list[bytes]:
        """The bytes as written: placeholders filled from `values` (JSON texts)."""
        values = values or {THREAD: "1", SOURCE: '"/nonexistent.c"'}
        data = b"".join(p.wire_bytes(values) for p in self.pieces)
        points = sorted({c % (len(data) + 1) for c in self.cuts} | {0, len(data)})
        return [data[a:b] for a, b in zip(points, points[1:], strict=False) if b > a]

    def owed_before_break(self) -> list[Piece]:
        """The pieces that must each get one response, in order."""
        owed: list[Piece] = []
        for piece in self.pieces:
            if piece.owed is Owed.BREAKS:
                break
            if piece.owed in (Owed.RESPONSE, Owed.SOME_RESPONSE):
                owed.append(piece)
        return owed


# Argument names from the DAP specification, so that generated objects reach the handlers'
# checks rather than stopping at "missing argument".
ARGUMENT_KEYS = (
    "threadId", "frameId", "variablesReference", "source", "breakpoints", "lines", "line",
    "column", "expression", "context", "format", "start", "count", "filter", "name", "value",
    "memoryReference", "offset", "instructionOffset", "instructionCount", "resolveSymbols",
    "data", "allowPartial", "granularity", "singleThread", "levels", "startFrame", "filters",
    "filterOptions", "exceptionOptions", "dataId", "accessType", "instructionReference",
    "text", "program", "args", "cwd", "env", "stopOnEntry", "terminateDebuggee", "restart",
    "arguments", "pid", "processId", "console", "sourceModified", "targetId", "path",
    "sourceReference", "condition", "hitCondition", "logMessage", "hex", "startModule",
    "moduleCount", "adapterID", "linesStartAt1", "columnsStartAt1", "pathFormat",
    "supportsRunInTerminalRequest", "supportsVariablePaging", "suspendDebuggee", "id",
)  # fmt: skip
NUMBERS = (
    0, 1, -1, 2, 3, 7, 20, 1000, 2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**63,
    2**64 - 1, 2**64, -(2**63), 10**30, -(10**30),
)  # fmt: skip
STRINGS = (
    "", "main", "leaf", "x", "op->id", "values[3]", "i == 7", "*0x0", "0x401000", "0x0",
    "0xffffffffffffffff", "-1", "bt", "info registers", "x/4xw $sp", "p/x i", "help",
    "repl", "watch", "hover", "clipboard", "variables", "indexed", "named", "instruction",
    "line", "statement", "write", "readWrite", "read", "signal", "throw", "catch", "\u0000",
    "\ud800", "\udfff", "é", "\u202e", "a" * 300, "%s%n", "{count}", "$pc", "`bt", "((((",
    "1 +", "sizeof(struct outer)", "*(char*)0", "$rip = 0", "/nonexistent", "../../etc",
)  # fmt: skip

_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(NUMBERS),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.sampled_from(STRINGS),
    st.text(max_size=12),
)
JSON_VALUES: st.SearchStrategy[Any] = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(ARGUMENT_KEYS), st.text(max_size=6)),
                        children, max_size=5),
    ),  # fmt: skip
    max_leaves=10,
)
ARGUMENTS: st.SearchStrategy[Any] = st.one_of(
    st.dictionaries(st.sampled_from(ARGUMENT_KEYS), JSON_VALUES, max_size=6),
    st.dictionaries(st.sampled_from(ARGUMENT_KEYS), JSON_VALUES, max_size=6),
    JSON_VALUES,  # the wrong type altogether (a number, a list, a string...)
)


def _dumps(message: Any) -> bytes:
    return json.dumps(message).encode()  # allows NaN/Infinity, escapes lone surrogates


@st.composite
def requests(draw: st.DrawFn, commands: Sequence[str], seqs: st.SearchStrategy[int]) -> Piece:
    """A request with an integer seq: the adapter must answer it, by seq."""
    command = draw(st.one_of(st.sampled_from(commands), st.sampled_from(commands),
                             st.text(max_size=10), st.sampled_from(["__init__", "constructor",
                             "toString", "Launch", "threads ", "eval", "\ud800", "th\x00reads"])))  # fmt: skip
    seq = draw(seqs)
    message: dict[str, Any] = {"seq": seq, "type": "request", "command": command}
    if draw(st.booleans()):
        message["arguments"] = draw(ARGUMENTS)
    if draw(st.integers(0, 9)) == 0:
        del message["type"]  # tolerated: a message without type is taken as a request
    if draw(st.integers(0, 9)) == 0:
        message[draw(st.text(max_size=5))] = draw(JSON_VALUES)  # an unknown top-level key
    data = _dumps(message)
    if not command:
        return Piece(frame(data), Owed.SOME_RESPONSE, seq, command)
    return Piece(frame(data), Owed.RESPONSE, seq, command)


@st.composite
def garbled(draw: st.DrawFn) -> Piece:
    """An intact frame whose content is not a usable request: one error response owed."""
    kind = draw(st.sampled_from(["json", "utf8", "binary", "type", "seq", "args", "deep",
                                 "bignum", "scalar", "empty"]))  # fmt: skip
    if kind == "json":
        good = _dumps({"seq": 5, "type": "request", "command": "threads"})
        cut = draw(st.integers(0, len(good) - 1))
        body = good[:cut] + draw(st.binary(max_size=4))
        body = body if body != good else body[:-1]
    elif kind == "utf8":
        body = b'{"seq": 3, "type": "request", "command": "\xff\xfe' + draw(st.binary(max_size=6)) + b'"}'
    elif kind == "binary":
        body = draw(st.binary(min_size=1, max_size=64))
        try:
            if isinstance(json.loads(body), dict):
                body = b"\xff" + body
        except (ValueError, UnicodeDecodeError, RecursionError):
            pass
    elif kind == "type":
        body = _dumps({"seq": 4, "type": draw(st.sampled_from(["", "Request", "reqest", 1, None,
                       ["request"]])), "command": "threads"})  # fmt: skip
    elif kind == "seq":
        bad_seq = draw(st.one_of(st.none(), st.booleans(), st.floats(), st.text(max_size=4),
                                 st.lists(st.integers(), max_size=2)))  # fmt: skip
        body = _dumps({"seq": bad_seq, "type": "request", "command": "threads"})
    elif kind == "args":
        body = _dumps({"seq": 6, "type": "request", "command": "threads",
                       "arguments": draw(st.one_of(st.integers(), st.text(max_size=4),
                                                   st.lists(st.integers(), max_size=3)))})  # fmt: skip
    elif kind == "deep":
        depth = draw(st.sampled_from([100, 1000, 5000, 50000]))
        opener = draw(st.sampled_from([b"[", b'{"a":']))
        body = b'{"seq": 8, "type": "request", "command": "threads", "arguments": ' + opener * depth
    elif kind == "bignum":
        body = b'{"seq": ' + b"9" * draw(st.sampled_from([20, 4400, 10000])) + b', "type": "request", "command": "threads"}'
    elif kind == "scalar":
        body = _dumps(draw(st.one_of(st.integers(), st.text(max_size=5), st.lists(st.none(), max_size=2), st.none())))
    else:
        body = b""
    return Piece(frame(body), Owed.SOME_RESPONSE)


@st.composite
def silent(draw: st.DrawFn) -> Piece:
    """Messages a client may send that need no reply: a stray response, an event."""
    if draw(st.booleans()):
        message: dict[str, Any] = {"seq": 9, "type": "response", "request_seq": draw(st.sampled_from(NUMBERS)),
                   "command": "runInTerminal", "success": draw(st.booleans())}  # fmt: skip
    else:
        message = {"seq": 10, "type": "event", "event": draw(st.text(max_size=8))}
    return Piece(frame(_dumps(message)), Owed.NOTHING)


@st.composite
def breaking(draw: st.DrawFn) -> Piece:
    """Damaged framing: bad headers, wrong lengths, truncation, noise between frames."""
    body = _dumps({"seq": 11, "type": "request", "command": "threads"})
    kind = draw(st.sampled_from(["short", "long", "nolength", "badlength", "huge", "lf",
                                 "conflict", "noise", "lower", "header", "negative"]))  # fmt: skip
    if kind == "short":  # claims less than it sends: the rest is read as the next header
        data = b"Content-Length: %d\r\n\r\n" % draw(st.integers(0, len(body) - 1)) + body
    elif kind == "long":  # claims more: it swallows what follows
        data = b"Content-Length: %d\r\n\r\n" % (len(body) + draw(st.integers(1, 2000))) + body
    elif kind == "nolength":
        data = b"Content-Type: application/json\r\n\r\n" + body
    elif kind == "badlength":
        value = draw(st.sampled_from([b"", b"abc", b"12abc", b"0x10", b"1e3", b"\xff", b"+5", b" 5 5"]))
        data = b"Content-Length: " + value + b"\r\n\r\n" + body
    elif kind == "huge":
        huge = draw(st.sampled_from([10**8, 2**63, 10**40]))
        data = b"Content-Length: %d\r\n\r\n" % huge + body
    elif kind == "lf":
        data = b"Content-Length: %d\n\n" % len(body) + body
    elif kind == "conflict":
        data = b"Content-Length: %d\r\nContent-Length: 3\r\n\r\n" % len(body) + body
    elif kind == "noise":
        data = draw(st.binary(min_size=1, max_size=80))
    elif kind == "lower":
        data = b"content-length: %d\r\n\r\n" % len(body) + body
    elif kind == "header":
        data = b"X-" + b"a" * draw(st.sampled_from([10, 70000])) + b"\r\n" + frame(body)
    else:
        data = b"Content-Length: -5\r\n\r\n" + body
    return Piece(data, Owed.BREAKS)


IDS = st.one_of(st.integers(1, 40), st.sampled_from(NUMBERS))
THREADS = st.one_of(st.just(THREAD), st.just(THREAD), st.just(THREAD), IDS)
EXPRESSIONS = st.one_of(st.sampled_from((
    "x", "doubled", "x + 1", "op->id", "op->in", "values", "values[3]", "values[100000]",
    "*values@4", "label", "count", "global_counter", "numbers", "&numbers[2]", "x = 5",
    "global_counter++", "(char)x", "sizeof(struct outer)", "*(int *)0", "*(long *)-1",
    "1/0", "$rip", "$sp", "$pc = 0", "leaf(2)", "'a'", "\"str\"", "1.5e308 * 10",
    "(struct outer *)0", "((struct outer *)0)->name", "-2147483648 / -1", "bt", "info locals",
    "info registers rip", "x/8xb $sp", "p/x x", "p/z global_counter", "x/99999xg 0", "`help",
    "info frame", "")), st.text(max_size=16))  # fmt: skip
ADDRESSES = st.one_of(st.sampled_from(("0x401000", "0x0", "0xffffffffffffffff", "0x7ffffffde000",
    "-1", "0x", "zzz", "0x10000000000000000")), st.integers(0, 2**64).map(hex))  # fmt: skip
FORMATS = st.fixed_dictionaries({}, optional={"hex": st.booleans()})
LINES = st.one_of(st.integers(1, 200), st.sampled_from(NUMBERS))
SOURCES = st.one_of(st.just({"path": SOURCE}), st.just({"path": SOURCE}),
                    st.fixed_dictionaries({}, optional={"path": st.sampled_from(STRINGS),
                        "name": st.text(max_size=5), "sourceReference": IDS}))  # fmt: skip
GRANULARITY = st.sampled_from(["statement", "line", "instruction", "bogus"])


def _opt(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=fields)


def _req(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(fields)


# Well-shaped arguments per command, drawn from values that reach the engine.
PLAUSIBLE: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "threads": st.just({}),
    "stackTrace": _req(threadId=THREADS) | _req(threadId=THREADS, startFrame=IDS, levels=IDS),
    "scopes": _req(frameId=IDS),
    "variables": _req(variablesReference=IDS) | _req(variablesReference=IDS,
        filter=st.sampled_from(["indexed", "named", "x"]), start=IDS, count=IDS, format=FORMATS),
    "evaluate": _req(expression=EXPRESSIONS, context=st.sampled_from(["watch", "repl", "hover",
        "clipboard", "variables", "x"])) | _req(expression=EXPRESSIONS, frameId=IDS,
        context=st.sampled_from(["watch", "repl", "hover"]), format=FORMATS),
    "setVariable": _req(variablesReference=IDS, name=st.sampled_from(["x", "id", "[3]", "nope",
        "doubled", "rax", "rip"]), value=EXPRESSIONS),
    "setExpression": _req(expression=EXPRESSIONS, value=EXPRESSIONS) | _req(expression=EXPRESSIONS,
        value=EXPRESSIONS, frameId=IDS),
    "continue": _req(threadId=THREADS), "pause": _req(threadId=THREADS),
    "next": _req(threadId=THREADS) | _req(threadId=THREADS, granularity=GRANULARITY),
    "stepIn": _req(threadId=THREADS) | _req(threadId=THREADS, granularity=GRANULARITY),
    "stepOut": _req(threadId=THREADS) | _req(threadId=THREADS, granularity=GRANULARITY),
    "exceptionInfo": _req(threadId=THREADS),
    "readMemory": _req(memoryReference=ADDRESSES, count=IDS) | _req(memoryReference=ADDRESSES,
        offset=st.sampled_from(NUMBERS), count=st.sampled_from(NUMBERS)),
    "writeMemory": _req(memoryReference=ADDRESSES, data=st.sampled_from(["AAAA", "", "!!", "kA=="]))
        | _req(memoryReference=ADDRESSES, offset=IDS, data=st.text(max_size=8), allowPartial=st.booleans()),
    "disassemble": _req(memoryReference=ADDRESSES, instructionCount=IDS) | _req(memoryReference=ADDRESSES,
        instructionCount=st.sampled_from(NUMBERS), instructionOffset=st.sampled_from(NUMBERS),
        offset=st.sampled_from(NUMBERS), resolveSymbols=st.booleans()),
    "setBreakpoints": _req(source=SOURCES, breakpoints=st.lists(_req(line=LINES) | _req(line=LINES,
        condition=EXPRESSIONS) | _req(line=LINES, hitCondition=st.sampled_from(["3", ">2", "%2", "x",
        "", "-1", "99999999999999999999"])) | _req(line=LINES, logMessage=st.sampled_from(["x={x}",
        "{", "}", "{{}}", "{nope}", "{x", "plain"])), max_size=3)) | _req(source=SOURCES, lines=st.lists(LINES, max_size=3)),
    "setFunctionBreakpoints": _req(breakpoints=st.lists(_req(name=EXPRESSIONS) | _req(name=st.sampled_from(["leaf", "main", "*0x401000", "nosuch", "printf"]),
        condition=EXPRESSIONS), max_size=3)),
    "setInstructionBreakpoints": _req(breakpoints=st.lists(_req(instructionReference=ADDRESSES)
        | _req(instructionReference=ADDRESSES, offset=st.sampled_from(NUMBERS)), max_size=3)),
    "dataBreakpointInfo": _req(variablesReference=IDS, name=st.sampled_from(["x", "doubled", "nope", "values"]))
        | _req(name=EXPRESSIONS, frameId=IDS),
    "setDataBreakpoints": _req(breakpoints=st.lists(_req(dataId=st.one_of(st.text(max_size=8), ADDRESSES,
        st.sampled_from(["0x7ffffffde000/4", "0x404040/8", "0x0/3", "x/0"]))) | _req(dataId=ADDRESSES,
        accessType=st.sampled_from(["write", "read", "readWrite", "rw"])), max_size=3)),
    "setExceptionBreakpoints": _req(filters=st.lists(st.sampled_from(["signals", "cpp_throw", "cpp_catch",
        "rust_panic", "exec", "fork", "nope"]), max_size=3)) | _req(filters=st.just([]), filterOptions=
        st.lists(_req(filterId=st.sampled_from(["signals", "x"]), condition=st.sampled_from(["SIGSEGV", "11", "x"])), max_size=2)),
    "breakpointLocations": _req(source=SOURCES, line=LINES) | _req(source=SOURCES, line=LINES, endLine=LINES),
    "completions": _req(text=EXPRESSIONS, column=LINES) | _req(text=EXPRESSIONS, column=LINES, frameId=IDS),
    "source": _req(sourceReference=IDS) | _req(source=SOURCES, sourceReference=IDS),
    "modules": _opt(startModule=IDS, moduleCount=IDS),
    "configurationDone": st.just({}),
    "initialize": _req(adapterID=st.text(max_size=4)),
    "terminate": st.just({}),
    "launch": _req(program=st.sampled_from(["/fake/prog", "/nonexistent", ""]), stopOnEntry=st.booleans()),
    "restart": st.just({}),
    "attach": _req(pid=st.sampled_from([4242, 0, -1, "12", "x"])),
}  # fmt: skip


@st.composite
def plausible(draw: st.DrawFn, commands: Sequence[str], seqs: st.SearchStrategy[int]) -> Piece:
    """A well-shaped request (placeholders for the thread and source), sometimes with one
    argument replaced by a hostile value."""
    command = draw(st.sampled_from([c for c in commands if c in PLAUSIBLE]))
    arguments = dict(draw(PLAUSIBLE[command]))
    if arguments and draw(st.integers(0, 3)) == 0:
        key = draw(st.sampled_from(sorted(arguments)))
        arguments[key] = draw(JSON_VALUES)
    seq = draw(seqs)
    body = _dumps({"seq": seq, "type": "request", "command": command, "arguments": arguments})
    return Piece(body, Owed.RESPONSE, seq, command, template=True)


def cases(commands: Sequence[str], *, max_pieces: int = 6) -> st.SearchStrategy[Case]:
    seqs = st.one_of(st.integers(1, 10**6), st.sampled_from(NUMBERS))
    piece = st.one_of(
        plausible(commands, seqs), plausible(commands, seqs), plausible(commands, seqs),
        requests(commands, seqs), garbled(), silent(), breaking(),
    )
    return st.builds(
        Case,
        st.lists(piece, min_size=1, max_size=max_pieces).map(tuple),
        st.lists(st.integers(0, 1 << 16), max_size=4).map(tuple),
    )
