"""`--adapter mcp` on the command line; the SDK loads only when it runs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from aliceserver.__main__ import main


def test_the_sdk_is_not_imported_by_the_entry_point_or_the_agent_layer() -> None:
    code = (
        "import sys, aliceserver.__main__, aliceserver.adapters.mcp, aliceserver.adapters.agent; "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types'))))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_mcp_is_served_on_stdio_only(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--adapter", "mcp", "--port", "0"])
    assert exited.value.code == 2
    assert "stdio only" in capsys.readouterr().err


@pytest.mark.parametrize("hidden", ["anyio", "mcp", "mcp_types"])
def test_without_the_mcp_extra_it_says_what_to_install(hidden: str) -> None:
    # `sys.modules[name] = None` makes importing it fail as if it were not installed.
    code = (
        f"import sys; sys.modules[{hidden!r}] = None; "
        "from aliceserver.__main__ import main; sys.exit(main(['--adapter', 'mcp']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "pip install 'aliceserver[mcp]'" in result.stderr
    assert f"missing module '{hidden}" in result.stderr
