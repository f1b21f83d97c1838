"""A strict checker of GDB/MI output lines, plus the client-compatibility rules of CLIENTS.md.

`parse_record(line)` parses one line into a `Record` (or raises `GrammarError`);
`check_transcript(lines, program_output=...)` checks a whole session's output: grammar,
prompt exactness, tokens only on result records, `^error,msg=` first, Emacs's key
charset, a prompt after every result record, and `*stopped` frames with fullname/line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Union

PROMPT = "(gdb) "
RESULT_CLASSES = {"done", "running", "connected", "error", "exit"}
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_EMACS_KEY = re.compile(r"[A-Za-z_-]+")  # gdb-mi.el turns keys into Lisp symbols: no digits
_CLASS = re.compile(r"[a-z][a-z-]*")
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}

Value = Union[str, "Tuple", "List"]


class GrammarError(ValueError):
    pass


@dataclass
class Tuple:
    items: list[tuple[str, Value]] = field(default_factory=list)

    def get(self, key: str) -> Value | None:
        for k, v in self.items:
            if k == key:
                return v
        return None

    def __getitem__(self, key: str) -> Value:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value


@dataclass
class List:
    values: list[Value] = field(default_factory=list)
    keys: list[str] | None = None  # a list of results: their keys


@dataclass
class Record:
    kind: str  # "result", "exec", "status", "notify", "console", "target", "log", "prompt"
    token: str = ""
    cls: str = ""
    results: Tuple = field(default_factory=Tuple)
    text: str = ""  # stream records: the decoded text


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, message: str) -> GrammarError:
        return GrammarError(f"{message} at column {self.pos}: {self.text!r}")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            raise self.fail(f"expected {ch!r}")
        self.pos += 1

    def c_string(self) -> str:
        self.expect('"')
        out = bytearray()
        while True:
            if self.pos >= len(self.text):
                raise self.fail("unterminated c-string")
            ch = self.text[self.pos]
            if ch == '"':
                self.pos += 1
                return out.decode("utf-8", "replace")
            if ch == "\\":
                nxt = self.text[self.pos + 1 : self.pos + 2]
                if nxt in _ESCAPES:
                    out += _ESCAPES[nxt].encode()
                    self.pos += 2
                elif re.fullmatch(r"[0-7]{3}", self.text[self.pos + 1 : self.pos + 4]):
                    out.append(int(self.text[self.pos + 1 : self.pos + 4], 8))
                    self.pos += 4
                else:
                    raise self.fail(f"bad escape \\{nxt}")
                continue
            if not " " <= ch <= "~":
                raise self.fail(f"unescaped byte {ch!r} in a c-string")
            out += ch.encode()
            self.pos += 1

    def key(self) -> str:
        match = _KEY.match(self.text, self.pos)
        if match is None:
            raise self.fail("expected a variable name")
        self.pos = match.end()
        return match.group()

    def result(self) -> tuple[str, Value]:
        key = self.key()
        self.expect("=")
        return key, self.value()

    def value(self) -> Value:
        ch = self.peek()
        if ch == '"':
            return self.c_string()
        if ch == "{":
            self.pos += 1
            items: list[tuple[str, Value]] = []
            if self.peek() == "}":
                self.pos += 1
                return Tuple(items)
            while True:
                items.append(self.result())
                if self.peek() == ",":
                    self.pos += 1
                    continue
                self.expect("}")
                return Tuple(items)
        if ch == "[":
            self.pos += 1
            if self.peek() == "]":
                self.pos += 1
                return List()
            if self.peek() in '"{[':
                values = [self.value()]
                while self.peek() == ",":
                    self.pos += 1
                    values.append(self.value())
                self.expect("]")
                return List(values)
            pairs = [self.result()]
            while self.peek() == ",":
                self.pos += 1
                pairs.append(self.result())
            self.expect("]")
            return List([v for _, v in pairs], [k for k, _ in pairs])
        raise self.fail("expected a value")

    def results(self) -> Tuple:
        items: list[tuple[str, Value]] = []
        while self.peek() == ",":
            self.pos += 1
            items.append(self.result())
        if self.pos != len(self.text):
            raise self.fail("garbage after the record")
        return Tuple(items)


def parse_record(line: str) -> Record:
    if line == PROMPT:
        return Record("prompt")
    if line.rstrip() == "(gdb)":
        raise GrammarError(f"inexact prompt {line!r}")
    parser = _Parser(line)
    if line[:1] in "~@&":
        parser.pos = 1
        text = parser.c_string()
        if parser.pos != len(line):
            raise parser.fail("garbage after a stream record")
        kind = {"~": "console", "@": "target", "&": "log"}[line[0]]
        return Record(kind, text=text)
    token = re.match(r"[0-9]*", line)
    assert token is not None
    parser.pos = token.end()
    marker = parser.peek()
    kinds = {"^": "result", "*": "exec", "+": "status", "=": "notify"}
    if marker not in kinds:
        raise GrammarError(f"not an MI record: {line!r}")
    parser.pos += 1
    match = _CLASS.match(line, parser.pos)
    if match is None:
        raise parser.fail("expected a class")
    parser.pos = match.end()
    record = Record(kinds[marker], token.group(), match.group())
    record.results = parser.results()
    if record.kind == "result" and record.cls not in RESULT_CLASSES:
        raise GrammarError(f"unknown result class {record.cls!r}: {line!r}")
    if record.token and record.kind != "result":
        raise GrammarError(f"a token on a non-result record: {line!r}")
    return record


def _keys(value: Value) -> Iterable[str]:
    if isinstance(value, Tuple):
        for key, item in value.items:
            yield key
            yield from _keys(item)
    elif isinstance(value, List):
        yield from value.keys or []
        for item in value.values:
            yield from _keys(item)


def check_record(record: Record, line: str) -> list[str]:
    errors = []
    for key in _keys(record.results):
        if not _EMACS_KEY.fullmatch(key):
            errors.append(f"key {key!r} is not a Lisp-friendly name: {line!r}")
    if record.kind == "result" and record.cls == "error":
        if not record.results.items or record.results.items[0][0] != "msg":
            errors.append(f"^error without msg first: {line!r}")
    if record.kind == "exec" and record.cls == "stopped":
        frame = record.results.get("frame")
        if isinstance(frame, Tuple) and frame.get("file") is not None:
            if frame.get("fullname") is None or frame.get("line") is None:
                errors.append(f"*stopped frame with a file but no fullname/line: {line!r}")
    return errors


def check_transcript(lines: list[str], program_output: Iterable[str] = ()) -> list[str]:
    """Every problem found in a session's output lines (without their newlines)."""
    allowed = set(program_output)
    errors: list[str] = []
    expect_prompt = running = False
    for index, line in enumerate(lines):
        try:
            record = parse_record(line)
        except GrammarError as error:
            if line in allowed:
                continue
            errors.append(f"line {index}: {error}")
            continue
        errors += [f"line {index}: {e}" for e in check_record(record, line)]
        if expect_prompt and record.kind != "prompt":
            # -interpreter-exec mi "CMD": the inner result comes right before the outer one.
            if not (running and record.kind == "exec" and record.cls == "running") and record.kind != "result":
                errors.append(f"line {index}: a result record not followed by the prompt: {line!r}")
            if record.kind != "result":
                continue
        expect_prompt = record.kind == "result" and record.cls != "exit"
        running = record.kind == "result" and record.cls == "running"
    return errors
