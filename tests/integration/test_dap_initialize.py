"""`initialize` of `python -m aliceserver --adapter dap`: what it announces conforms to the DAP
schema, every request it announces is answered, and it offers what lldb-vscode-16 offers.

The schema and lldb-vscode-16's recorded session live in ../shared/reference/dap/ (tests
skip with the reason on a fresh clone)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aliceserver.adapters.dap.capabilities import REQUEST_CAPABILITIES
from tests.support.dap_client import DapClient
from tests.support.dap_schema import DapSchema, default_schema_path, require_schema
from tests.support.dap_session import alice_session

# lldb-vscode-16 announces these and we do not: setExceptionBreakpoints takes filters,
# not exceptionOptions; the other two are client capabilities the schema does not list.
NOT_LIKE_LLDB = {"supportsExceptionOptions", "supportsProgressReporting",
                 "supportsRunInTerminalRequest"}  # fmt: skip


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    require_schema()
    with alice_session(stderr=tmp_path / "adapter.log") as client:
        yield client


def _lldb_vscode_capabilities() -> dict[str, Any]:
    transcript = default_schema_path().parent / "lldb-vscode-16-session.jsonl"
    if not transcript.exists():
        pytest.skip(f"lldb-vscode-16's session is not at {transcript}")
    for line in transcript.read_text(encoding="utf-8").splitlines():
        message = json.loads(line)["msg"]
        if message.get("type") == "response" and message.get("command") == "initialize":
            body: dict[str, Any] = message["body"]
            return body
    raise AssertionError(f"{transcript} has no initialize response")


def test_initialize_conforms_and_announces_only_answered_requests(dap: DapClient) -> None:
    schema: DapSchema = require_schema()
    response = dap.request("initialize", {"adapterID": "alice", "clientID": "test"})
    schema.check(response, "InitializeResponse")
    body = response["body"]
    assert set(body) <= set(schema.definitions["Capabilities"]["properties"])
    for name, requests in REQUEST_CAPABILITIES.items():
        answers = [dap.request(request, {}).get("message") for request in requests]
        unknown = [text for text in answers if "unrecognised request" in (text or "")]
        if body[name]:
            assert not unknown, f"{name} is announced but {requests} is not answered"
        else:
            assert len(unknown) == len(requests), f"{name} is not announced: {answers}"


def test_offers_what_lldb_vscode_16_offers(dap: DapClient) -> None:
    ours = dap.call("initialize", {"adapterID": "alice"})
    theirs = _lldb_vscode_capabilities()
    missing = {name for name, value in theirs.items() if value is True and not ours.get(name)}
    assert missing == NOT_LIKE_LLDB
    assert {f["filter"] for f in ours["exceptionBreakpointFilters"]} >= {"cpp_catch", "cpp_throw"}
