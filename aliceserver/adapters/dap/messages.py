"""DAP message shapes: decoding requests, typed access to arguments, error ids and bodies."""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aliceserver.debuggers.model import os_text
from aliceserver.errors import AliceError, ProtocolError, TargetError, Unsupported

JsonObject = dict[str, Any]


class ErrorId(enum.IntEnum):
    """Numeric ids of error replies (body.error.id): stable, so users can quote them."""

    BAD_REQUEST = 1000  # not JSON, not a request, no command
    UNKNOWN_COMMAND = 1001
    INVALID_ARGUMENTS = 1002
    STALE_REFERENCE = 1003  # a variablesReference / frameId from an earlier stop
    WRONG_STATE = 1004  # e.g. launch twice, configurationDone before initialize
    PROTOCOL = 1099  # any other ProtocolError
    TARGET = 2000  # the debuggee or the OS refused
    UNSUPPORTED = 3000
    INTERNAL = 9000  # a bug: the traceback is in the log


class InvalidArguments(ProtocolError):
    """A request's arguments are missing or of the wrong type."""

    error_id = ErrorId.INVALID_ARGUMENTS


class StaleReference(ProtocolError):
    """A handle that belongs to an earlier stop (or never existed)."""

    error_id = ErrorId.STALE_REFERENCE


class WrongState(ProtocolError):
    """A request that makes no sense now (launch twice, stepping with no program...)."""

    error_id = ErrorId.WRONG_STATE


def error_id_of(error: BaseException) -> int:
    explicit = getattr(error, "error_id", None)
    if isinstance(explicit, int):
        return explicit
    if isinstance(error, TargetError):
        return ErrorId.TARGET
    if isinstance(error, Unsupported):
        return ErrorId.UNSUPPORTED
    if isinstance(error, AliceError):
        return ErrorId.PROTOCOL
    return ErrorId.INTERNAL


@dataclass(frozen=True, slots=True)
class Request:
    seq: int
    command: str
    arguments: Arguments


class BadMessage(ProtocolError):
    """Input that is not a usable request; `seq`/`command` are what could be recovered."""

    error_id = ErrorId.BAD_REQUEST

    def __init__(self, message: str, seq: int = 0, command: str = "") -> None:
        super().__init__(message)
        self.seq = seq
        self.command = command


_SEQ = re.compile(rb'"seq"\s*:\s*(\d{1,9})')
_COMMAND = re.compile(rb'"command"\s*:\s*"([A-Za-z_]{1,64})"')


def decode(data: bytes) -> JsonObject:
    """A JSON object from the wire; BadMessage (with what could be salvaged) if it is not."""
    try:
        message = json.loads(data)
    except RecursionError:  # nesting deeper than the parser's stack: not a request either
        seq = _SEQ.search(data)
        command = _COMMAND.search(data)
        raise BadMessage(
            "invalid JSON: nested too deeply",
            int(seq.group(1)) if seq else 0,
            command.group(1).decode() if command else "",
        ) from None
    except (UnicodeDecodeError, ValueError) as error:
        seq = _SEQ.search(data)
        command = _COMMAND.search(data)
        raise BadMessage(
            f"invalid JSON: {error}",
            int(seq.group(1)) if seq else 0,
            command.group(1).decode() if command else "",
        ) from None
    if not isinstance(message, dict):
        raise BadMessage(f"a message must be a JSON object, not {type(message).__name__}")
    return message


def as_request(message: JsonObject) -> Request:
    raw_seq = message.get("seq")
    command = message.get("command")
    seq = raw_seq if isinstance(raw_seq, int) and not isinstance(raw_seq, bool) else None
    if seq is None or not isinstance(command, str) or not command:
        raise BadMessage(
            "a request needs an integer 'seq' and a string 'command'",
            seq or 0,
            command if isinstance(command, str) else "",
        )
    arguments = message.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise BadMessage(f"{command}: 'arguments' must be an object", seq, command)
    return Request(seq, command, Arguments(command, arguments))


class EncodedBody(dict[str, Any]):
    """A response body whose JSON is made once: sent again unchanged (1,000 threads' names at
    each stop), it costs no encoding (0.3 ms for those). Read as a dict, it is the body."""

    def __init__(self, body: JsonObject) -> None:
        super().__init__(body)
        self.json = encode(body)


def encode(message: Mapping[str, Any]) -> bytes:
    body = message.get("body")
    if type(body) is EncodedBody:
        head = encode({key: value for key, value in message.items() if key != "body"})
        return b"".join((head[:-1], b',"body":', body.json, b"}"))
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a client's "\ud800" echoed): keep it escaped
        return json.dumps(message, separators=(",", ":")).encode("ascii")


def error_body(error_id: int, text: str, *, show_user: bool) -> JsonObject:
    return {"error": {"id": int(error_id), "format": text, "showUser": show_user}}


class Arguments:
    """Typed, checked access to a request's `arguments` (wrong types are InvalidArguments)."""

    def __init__(self, command: str, raw: Mapping[str, Any], where: str = "") -> None:
        self.command = command
        self.raw = raw
        self._where = where

    def _name(self, key: str) -> str:
        return f"{self._where}{key}"

    def _bad(self, key: str, wanted: str) -> InvalidArguments:
        return InvalidArguments(f"{self.command}: '{self._name(key)}' must be {wanted}")

    def has(self, key: str) -> bool:
        return self.raw.get(key) is not None

    def _get(self, key: str, required: bool) -> Any:
        value = self.raw.get(key)
        if value is None and required:
            raise InvalidArguments(f"{self.command}: '{self._name(key)}' is required")
        return value

    def integer(self, key: str) -> int:
        value = self._get(key, True)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self._bad(key, "an integer")
        return value

    def opt_integer(self, key: str, default: int | None = None) -> int | None:
        if not self.has(key):
            return default
        return self.integer(key)

    def string(self, key: str) -> str:
        value = self._get(key, True)
        if not isinstance(value, str):
            raise self._bad(key, "a string")
        return value

    def opt_string(self, key: str, default: str | None = None) -> str | None:
        return self.string(key) if self.has(key) else default

    def path(self, key: str) -> str:
        """A string the file system can take (see os_text)."""
        value = self.string(key)
        if not os_text(value):
            raise self._bad(key, "a file path (it holds a NUL or a character no name can)")
        return value

    def opt_path(self, key: str) -> str | None:
        return self.path(key) if self.has(key) else None

    def boolean(self, key: str, default: bool = False) -> bool:
        value = self.raw.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self._bad(key, "true or false")
        return value

    def object(self, key: str) -> Arguments:
        value = self._get(key, True)
        if not isinstance(value, dict):
            raise self._bad(key, "an object")
        return Arguments(self.command, value, f"{self._name(key)}.")

    def opt_object(self, key: str) -> Arguments | None:
        return self.object(key) if self.has(key) else None

    def objects(self, key: str, *, required: bool = False) -> list[Arguments]:
        value = self._get(key, required)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self._bad(key, "an array of objects")
        return [Arguments(self.command, v, f"{self._name(key)}[{i}].") for i, v in enumerate(value)]

    def strings(self, key: str) -> list[str]:
        value = self._get(key, False)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._bad(key, "an array of strings")
        return list(value)
