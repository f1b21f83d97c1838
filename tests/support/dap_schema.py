"""Validate Debug Adapter Protocol messages against the protocol's JSON schema.

Every message is checked against the most specific definition the schema has for it: a
request `stackTrace` against `StackTraceRequest`, its successful response against
`StackTraceResponse` (an unsuccessful one against `ErrorResponse`), an event `stopped`
against `StoppedEvent`; commands and events the schema does not know fall back to the base
`Request` / `Response` / `Event`. Integer formats (`int32`, `uint32`, `int64`, `uint64`) are
range-checked: clients keep ids such as `variablesReference` in 32-bit integers.

The schema lives beside the repository, in `../shared/reference/dap/` (development and CI);
`ALICESERVER_DAP_SCHEMA=PATH` points elsewhere. On a fresh clone it is absent: then
`shared_schema()` returns None and logs why once, and `require_schema()` skips the calling
test with that reason, so no test claims a validation it did not do.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator, FormatChecker

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA_ENV = "ALICESERVER_DAP_SCHEMA"
MESSAGE_TYPES = ("request", "response", "event")

_INT_RANGES = {
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}


def default_schema_path() -> Path:
    """Where the schema is looked for: $ALICESERVER_DAP_SCHEMA, else ../shared/reference/dap/."""
    override = os.environ.get(SCHEMA_ENV)
    if override:
        return Path(override)
    return REPO_ROOT.parent / "shared" / "reference" / "dap" / "debugAdapterProtocol.json"


@dataclass(frozen=True)
class Violation:
    """One way a message breaks the schema."""

    definition: str  # the schema definition checked against, e.g. "StoppedEvent"
    where: str  # JSON path inside the message, e.g. "body.threadId" ("" = the message)
    message: str

    def __str__(self) -> str:
        return f"{self.definition} {self.where or '<message>'}: {self.message}"


class SchemaViolation(AssertionError):
    """A message does not conform (raised by `DapSchema.check`)."""

    def __init__(self, message: Mapping[str, Any], violations: list[Violation]) -> None:
        self.violations = violations
        text = json.dumps(message, sort_keys=True)
        if len(text) > 600:
            text = text[:600] + "..."
        lines = "\n".join(f"  {v}" for v in violations)
        super().__init__(f"DAP message breaks the schema:\n{lines}\nmessage: {text}")


def _int_format(name: str) -> Any:
    low, high = _INT_RANGES[name]

    def check(value: object) -> bool:
        # Formats apply only to integers; the `type` keyword reports anything else.
        if not isinstance(value, int) or isinstance(value, bool):
            return True
        return low <= value <= high

    return check


def _format_checker() -> FormatChecker:
    checker = FormatChecker(formats=())
    for name in _INT_RANGES:
        checker.checks(name)(_int_format(name))
    return checker


def _single_enum(definition: Mapping[str, Any], key: str) -> str | None:
    """The constant `key` (command or event name) a Request/Event definition pins down."""
    for part in definition.get("allOf", ())[1:]:
        values = part.get("properties", {}).get(key, {}).get("enum")
        if isinstance(values, list) and len(values) == 1 and isinstance(values[0], str):
            return values[0]
    return None


def _base_of(definition: Mapping[str, Any]) -> str | None:
    parts = definition.get("allOf")
    if not parts:
        return None
    ref = parts[0].get("$ref", "")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) and ref else None


@dataclass
class DapSchema:
    """The DAP schema document, with the message -> definition maps derived from it."""

    document: dict[str, Any]
    source: str = "<memory>"
    requests: dict[str, str] = field(default_factory=dict, init=False)  # command -> definition
    responses: dict[str, str] = field(default_factory=dict, init=False)
    events: dict[str, str] = field(default_factory=dict, init=False)  # event -> definition
    _validators: dict[str, Draft4Validator] = field(default_factory=dict, init=False)
    _formats: FormatChecker = field(default_factory=_format_checker, init=False)

    def __post_init__(self) -> None:
        definitions: dict[str, Any] = self.document["definitions"]
        for name, definition in definitions.items():
            base = _base_of(definition)
            if base == "Request":
                command = _single_enum(definition, "command")
                if command is not None:
                    self.requests[command] = name
                    response = name.removesuffix("Request") + "Response"
                    if response in definitions:
                        self.responses[command] = response
            elif base == "Event":
                event = _single_enum(definition, "event")
                if event is not None:
                    self.events[event] = name

    @classmethod
    def load(cls, path: Path) -> DapSchema:
        return cls(json.loads(path.read_text(encoding="utf-8")), source=str(path))

    @property
    def definitions(self) -> Mapping[str, Any]:
        definitions: Mapping[str, Any] = self.document["definitions"]
        return definitions

    def validator(self, definition: str) -> Draft4Validator:
        """A validator for one definition (refs resolve inside the same document)."""
        found = self._validators.get(definition)
        if found is None:
            if definition not in self.definitions:
                raise KeyError(f"the DAP schema has no definition {definition!r}")
            # The schema is draft-04 (its $schema says so); refs are "#/definitions/X".
            root = {"$ref": f"#/definitions/{definition}", "definitions": self.definitions}
            found = Draft4Validator(root, format_checker=self._formats)
            self._validators[definition] = found
        return found

    def definition_for(self, message: Mapping[str, Any]) -> str:
        """The most specific definition `message` must satisfy."""
        kind = message.get("type")
        if kind == "request":
            return self.requests.get(str(message.get("command")), "Request")
        if kind == "response":
            if message.get("success") is False:
                return "ErrorResponse"
            return self.responses.get(str(message.get("command")), "Response")
        if kind == "event":
            return self.events.get(str(message.get("event")), "Event")
        return "ProtocolMessage"

    def validate(self, message: object, definition: str | None = None) -> list[Violation]:
        """Every violation of `message` against `definition` (default: its own); [] if valid."""
        if not isinstance(message, Mapping):
            return [Violation(definition or "ProtocolMessage", "", "not a JSON object")]
        name = definition or self.definition_for(message)
        found: list[Violation] = []
        if definition is None and message.get("type") not in MESSAGE_TYPES:
            # ProtocolMessage only has an open `_enum` for `type`: check it ourselves.
            found.append(
                Violation(name, "type", f"{message.get('type')!r} is not one of {MESSAGE_TYPES}")
            )
        for error in self.validator(name).iter_errors(dict(message)):
            where = ".".join(str(part) for part in error.absolute_path)
            found.append(Violation(name, where, error.message))
        found.sort(key=lambda v: (v.where, v.message))
        return found

    def check(self, message: Mapping[str, Any], definition: str | None = None) -> None:
        """Raise SchemaViolation unless `message` conforms."""
        violations = self.validate(message, definition)
        if violations:
            raise SchemaViolation(message, violations)


@functools.cache
def _load_cached(path: str) -> DapSchema | None:
    # Cached per path: the one-time warning, and one parse of the 190 KB document per run.
    schema_path = Path(path)
    if not schema_path.is_file():
        log.warning("DAP schema validation disabled: %s", missing_reason(schema_path))
        return None
    return DapSchema.load(schema_path)


def missing_reason(path: Path | None = None) -> str:
    where = path or default_schema_path()
    return (
        f"the DAP schema {where} is absent (it ships in ../shared/reference/dap/ beside the "
        f"repository in development and CI; set {SCHEMA_ENV} to use another copy)"
    )


def shared_schema() -> DapSchema | None:
    """The schema at `default_schema_path()`, or None (logged once) when it is absent."""
    return _load_cached(str(default_schema_path()))


def require_schema() -> DapSchema:
    """The schema, or skip the calling pytest test with the reason it is unavailable."""
    schema = shared_schema()
    if schema is None:
        import pytest  # only tests call this; the client and tools use shared_schema()

        pytest.skip(missing_reason())
    return schema
