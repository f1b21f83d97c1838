"""The fake debugger has no process to write a core of: gcore is refused in gdb's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from aliceserver.debuggers.model import LaunchConfig
from aliceserver.errors import TargetError
from tests.support.fake_debugger import FakeDebugger


def test_gcore_is_refused_with_and_without_a_process(tmp_path: Path) -> None:
    fake = FakeDebugger()
    with pytest.raises(TargetError, match="^You can't do that without a process to debug.$"):
        fake.write_core()
    fake.launch(LaunchConfig(program="/bin/prog"))
    with pytest.raises(TargetError, match="^Target does not support core file generation.$"):
        fake.write_core(f"{tmp_path}/x.core")
    fake.close()
