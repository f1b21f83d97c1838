"""Engine errors become tool errors with stable codes and hints."""

from __future__ import annotations

import pytest

from aliceserver.adapters.agent.errors import ErrorCode, ToolError, classify
from aliceserver.errors import ProtocolError, TargetError, Unsupported


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (ProtocolError('No symbol "nosuch" in current context.'), ErrorCode.NO_SYMBOL),
        (ProtocolError("A syntax error in expression, near `'."), ErrorCode.BAD_EXPRESSION),
        (TargetError("Cannot access memory at address 0x0"), ErrorCode.MEMORY_ERROR),
        (TargetError("The program is running; interrupt it first."), ErrorCode.NOT_STOPPED),
        (TargetError("The program is not being run."), ErrorCode.NO_PROCESS),
        (TargetError("no thread 12"), ErrorCode.NO_THREAD),
        (TargetError("the kernel said no"), ErrorCode.TARGET_ERROR),
        (Unsupported("no vector registers"), ErrorCode.UNSUPPORTED),
    ],
)
def test_classify(error: Exception, code: ErrorCode) -> None:
    assert isinstance(error, (ProtocolError, TargetError, Unsupported))
    result = classify(error)
    assert result.code is code
    assert result.message == str(error)


def test_tool_errors_pass_through_and_render_their_fields() -> None:
    error = ToolError(ErrorCode.NO_SESSION, "no session", "debug_launch")
    assert classify(error) is error
    assert error.as_dict() == {"error": "NO_SESSION", "message": "no session", "hint": "debug_launch"}


def test_hints_come_with_common_codes() -> None:
    assert classify(ProtocolError('No symbol "x" in current context.')).hint
