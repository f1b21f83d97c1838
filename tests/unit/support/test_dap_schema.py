"""tests/support/dap_schema.py: valid and invalid messages of each kind, the fallback rules."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.support import dap_schema
from tests.support.dap_schema import DapSchema, SchemaViolation, require_schema


@pytest.fixture(scope="module")
def schema() -> DapSchema:
    return require_schema()


def stopped(**body: Any) -> dict[str, Any]:
    return {"seq": 5, "type": "event", "event": "stopped", "body": body}


def response(command: str, body: Any = None, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "seq": 3,
        "type": "response",
        "request_seq": 2,
        "success": True,
        "command": command,
    }
    if body is not None:
        message["body"] = body
    message.update(extra)
    return message


FRAME = {"id": 1000, "name": "main", "line": 12, "column": 1, "source": {"path": "/t/p.c"}}


def test_maps_come_from_the_schema(schema: DapSchema) -> None:
    assert schema.requests["stackTrace"] == "StackTraceRequest"
    assert schema.responses["stackTrace"] == "StackTraceResponse"
    assert schema.requests["runInTerminal"] == "RunInTerminalRequest"
    assert schema.events["stopped"] == "StoppedEvent"
    assert schema.events["loadedSource"] == "LoadedSourceEvent"


def test_valid_messages(schema: DapSchema) -> None:
    good = [
        {
            "seq": 1,
            "type": "request",
            "command": "initialize",
            "arguments": {"adapterID": "alice", "linesStartAt1": True, "pathFormat": "path"},
        },
        {"seq": 2, "type": "request", "command": "configurationDone"},
        stopped(reason="breakpoint", threadId=7, allThreadsStopped=True, hitBreakpointIds=[1]),
        response("stackTrace", {"stackFrames": [FRAME], "totalFrames": 1}),
        response("continue", {"allThreadsContinued": True}),
        response("configurationDone"),
        response("evaluate", {}, success=False, message="no symbol 'x'"),
        {"seq": 9, "type": "event", "event": "exited", "body": {"exitCode": 0}},
        {"seq": 10, "type": "event", "event": "initialized"},
        # Commands and events outside the spec fall back to the base definitions.
        {"seq": 11, "type": "request", "command": "aliceCustom", "arguments": {"x": 1}},
        {"seq": 12, "type": "event", "event": "aliceCustom", "body": {"y": 2}},
    ]
    for message in good:
        assert schema.validate(message) == [], message


def test_invalid_event(schema: DapSchema) -> None:
    problems = schema.validate(stopped(threadId=7))  # no reason
    assert [(p.definition, p.where) for p in problems] == [("StoppedEvent", "body")]
    assert "reason" in problems[0].message


def test_invalid_response_body(schema: DapSchema) -> None:
    frame = dict(FRAME)
    del frame["column"]
    problems = schema.validate(response("stackTrace", {"stackFrames": [frame]}))
    assert [(p.definition, p.where) for p in problems] == [
        ("StackTraceResponse", "body.stackFrames.0")
    ]
    # A successful stackTrace response must carry a body.
    assert schema.validate(response("stackTrace"))
    # dap_server.py reads body.allThreadsContinued: the schema at least types it.
    assert schema.validate(response("continue", {"allThreadsContinued": "yes"}))


def test_invalid_request_and_base_fields(schema: DapSchema) -> None:
    assert schema.validate({"seq": 4, "type": "request", "command": "stackTrace", "arguments": {}})
    assert schema.validate({"seq": 4, "type": "request"})  # no command
    # seq starts at 1 (lldb-vscode-16 sends 0 on everything: callers may relax that).
    problems = schema.validate({"seq": 0, "type": "event", "event": "initialized"})
    assert [p.where for p in problems] == ["seq"]
    assert schema.validate({"seq": 4, "type": "notice"})[0].where == "type"
    assert schema.validate([1, 2])[0].message == "not a JSON object"


def test_error_response_needs_a_body(schema: DapSchema) -> None:
    problems = schema.validate(response("evaluate", success=False, message="bad"))
    assert problems and problems[0].definition == "ErrorResponse"


def test_int32_ranges(schema: DapSchema) -> None:
    big = {"name": "x", "value": "1", "variablesReference": 2**31}
    problems = schema.validate(response("variables", {"variables": [big]}))
    assert [p.where for p in problems] == ["body.variables.0.variablesReference"]
    ok = dict(big, variablesReference=2**31 - 1)
    assert schema.validate(response("variables", {"variables": [ok]})) == []


def test_check_raises_with_every_violation(schema: DapSchema) -> None:
    with pytest.raises(SchemaViolation) as caught:
        schema.check(stopped(threadId="seven"))
    assert len(caught.value.violations) == 2
    assert "StoppedEvent" in str(caught.value)


def test_explicit_definition(schema: DapSchema) -> None:
    assert schema.validate({"id": 1, "name": "main", "line": 1, "column": 1}, "StackFrame") == []
    with pytest.raises(KeyError):
        schema.validate({}, "NoSuchDefinition")


def test_absent_schema_is_reported_not_claimed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Works on a fresh clone too: it never reads the real schema.
    missing = tmp_path / "nowhere" / "debugAdapterProtocol.json"
    monkeypatch.setenv(dap_schema.SCHEMA_ENV, str(missing))
    with caplog.at_level(logging.WARNING, logger=dap_schema.__name__):
        assert dap_schema.shared_schema() is None
        assert dap_schema.shared_schema() is None
    warnings = [r for r in caplog.records if "validation disabled" in r.getMessage()]
    assert len(warnings) == 1 and str(missing) in warnings[0].getMessage()
    with pytest.raises(pytest.skip.Exception, match="is absent"):
        require_schema()


def test_schema_from_another_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tiny = {
        "definitions": {
            "ProtocolMessage": {"type": "object", "required": ["seq", "type"]},
            "Event": {"allOf": [{"$ref": "#/definitions/ProtocolMessage"}]},
        }
    }
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(tiny))
    monkeypatch.setenv(dap_schema.SCHEMA_ENV, str(path))
    loaded = dap_schema.shared_schema()
    assert loaded is not None and loaded.source == str(path)
    assert loaded.validate({"seq": 1, "type": "event", "event": "x"}) == []
    assert loaded.validate({"type": "event"})[0].message.startswith("'seq'")
