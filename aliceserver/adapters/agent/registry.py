"""Tools as protocol-neutral specs: a name, a description, typed parameters (which give
the JSON schema and validate the arguments) and a handler returning a JSON-able reply.

The MCP binding lists and calls them; a command-line front end can do the same.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aliceserver.adapters.agent.budget import Budget, fit_reply
from aliceserver.adapters.agent.errors import ErrorCode, ToolError, bad_argument, classify
from aliceserver.errors import AliceError

log = logging.getLogger(__name__)

_JSON_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: str  # a JSON type: string, integer, number, boolean, array, object
    description: str
    required: bool = False
    enum: tuple[str, ...] | None = None
    items: str | None = None  # arrays: the JSON type of the elements
    values: str | None = None  # objects: the JSON type of the values
    minimum: float | None = None
    maximum: float | None = None
    default: Any = None

    def schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": self.kind, "description": self.description}
        if self.enum is not None:
            schema["enum"] = list(self.enum)
        if self.items is not None:
            schema["items"] = {"type": self.items}
        if self.values is not None:
            schema["additionalProperties"] = {"type": self.values}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        if self.default is not None:
            schema["default"] = self.default
        return schema

    def check(self, value: Any) -> Any:
        expected = _JSON_TYPES[self.kind]
        if isinstance(value, bool) and bool not in expected:  # JSON true is not 1
            raise bad_argument(f"{self.name} must be a {self.kind}, not a boolean")
        if not isinstance(value, expected):
            raise bad_argument(f"{self.name} must be a {self.kind}, not {type(value).__name__}")
        if isinstance(value, float) and not math.isfinite(value):
            raise bad_argument(f"{self.name} must be a finite number")
        if self.enum is not None and value not in self.enum:
            raise bad_argument(f"{self.name} must be one of {', '.join(self.enum)}, not {value!r}")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if self.minimum is not None and value < self.minimum:
                raise bad_argument(f"{self.name} must be at least {self.minimum:g}")
            if self.maximum is not None and value > self.maximum:
                raise bad_argument(f"{self.name} must be at most {self.maximum:g}")
        if self.items is not None and isinstance(value, list):
            for element in value:
                if not isinstance(element, _JSON_TYPES[self.items]) or isinstance(element, bool):
                    raise bad_argument(f"every element of {self.name} must be a {self.items}")
        if self.values is not None and isinstance(value, dict):
            for key, element in value.items():
                if not isinstance(element, _JSON_TYPES[self.values]) or isinstance(element, bool):
                    raise bad_argument(f"{self.name}[{key!r}] must be a {self.values}")
        return value


class Args:
    """Validated arguments with typed accessors (a missing optional gives its default)."""

    def __init__(self, values: Mapping[str, Any], params: Mapping[str, Param]) -> None:
        self._values = dict(values)
        self._params = params

    def _get(self, name: str) -> Any:
        if name in self._values:
            return self._values[name]
        return self._params[name].default if name in self._params else None

    def text(self, name: str) -> str | None:
        value = self._get(name)
        return value if isinstance(value, str) else None

    def integer(self, name: str) -> int | None:
        value = self._get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def number(self, name: str) -> float | None:
        value = self._get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return None

    def flag(self, name: str) -> bool:
        return self._get(name) is True

    def items(self, name: str) -> list[Any]:
        value = self._get(name)
        return list(value) if isinstance(value, list) else []

    def mapping(self, name: str) -> dict[str, Any] | None:
        value = self._get(name)
        return dict(value) if isinstance(value, dict) else None

    def has(self, name: str) -> bool:
        return name in self._values


Handler = Callable[[Args], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    params: tuple[Param, ...]
    handler: Handler
    read_only: bool = False

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {p.name: p.schema() for p in self.params},
            "required": [p.name for p in self.params if p.required],
            "additionalProperties": False,
        }

    def parse(self, raw: Mapping[str, Any] | None) -> Args:
        params = {p.name: p for p in self.params}
        values = dict(raw or {})
        unknown = sorted(set(values) - set(params))
        if unknown:
            raise bad_argument(
                f"{self.name} has no parameter {', '.join(unknown)}",
                f"its parameters: {', '.join(params) or 'none'}",
            )
        for param in self.params:
            if values.get(param.name) is None:
                values.pop(param.name, None)
                if param.required:
                    raise bad_argument(f"{self.name} needs {param.name}: {param.description}")
                continue
            param.check(values[param.name])
        return Args(values, params)


@dataclass(frozen=True, slots=True)
class ToolReply:
    data: dict[str, Any]
    is_error: bool = False


class ToolRegistry:
    """Tools by name; `call` never raises: failures come back as error replies."""

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or Budget()
        self._tools: dict[str, ToolSpec] = {}

    def add(self, spec: ToolSpec) -> None:
        if spec.name in self._tools:
            raise ValueError(f"tool {spec.name} registered twice")
        self._tools[spec.name] = spec

    def specs(self) -> list[ToolSpec]:
        return list(self._tools.values())

    def get(self, name: str) -> ToolSpec | None:
        return self._tools.get(name)

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> ToolReply:
        spec = self._tools.get(name)
        try:
            if spec is None:
                raise bad_argument(f"no tool {name!r}", f"tools: {', '.join(self._tools)}")
            data = spec.handler(spec.parse(arguments))
        except ToolError as error:
            return ToolReply(error.as_dict(), is_error=True)
        except AliceError as error:
            return ToolReply(classify(error).as_dict(), is_error=True)
        except Exception as error:  # a bug: say what failed, keep serving
            log.exception("tool %s failed", name)
            failure = ToolError(
                ErrorCode.INTERNAL,
                f"{type(error).__name__}: {error}",
                "an internal error of the debugger server; the session may still be usable "
                "(debug_context shows its state)",
            )
            return ToolReply(failure.as_dict(), is_error=True)
        return ToolReply(fit_reply(data, self.budget))
