"""The trampoline a launch starts through: sh and `env -i` where that gives the program all
it asks for (its exact environment, arguments, working directory), Python's elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.model import LaunchConfig, StdioMode
from aliceserver.debuggers.ptrace import launcher
from tests.support.build import Builder
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, launch

pytestmark = pytest.mark.timeout(60)

# Names no shell would pass on (not identifiers), values with what a shell would expand.
_ODD = {"ALICE-DASH": "1", "ALICE SPACE": "two words", "ALICE_NL": "a\nb", "ALICE_DOLLAR": "$HOME `x` 'q'",
        "-ALICE_DASH_FIRST": "v", "ALICE_EMPTY": ""}  # fmt: skip


def test_a_program_gets_exactly_its_environment_through_sh_and_env(
    debugger: IDebugger, events: EventLog, builder: Builder, tmp_path: Path
) -> None:
    prog = builder.build("print_environ")
    config = LaunchConfig(program=str(prog), env=_ODD, cwd=str(tmp_path), stdio=StdioMode.PIPES)
    spawned = launcher.spawn_stopped(config, str(prog))
    try:
        assert spawned.execs == 2  # env's exec, then the program's
    finally:
        os.kill(spawned.pid, 9)
        os.waitpid(spawned.pid, 0)
        for fd in (spawned.stdin, spawned.stdout, spawned.stderr):
            if fd is not None:
                os.close(fd)
    launch(debugger, prog, cwd=str(tmp_path), env=_ODD)
    assert continue_to_exit(debugger, events).code == 0
    printed = events.output("stdout")
    assert printed == "".join(f"{name}={value}\n" for name, value in _ODD.items())


@pytest.mark.parametrize("case", ["tty", "argv0", "not-executable", "no-header"])
def test_what_sh_cannot_do_goes_through_python(builder: Builder, tmp_path: Path, case: str) -> None:
    prog = builder.build("print_environ")
    config = LaunchConfig(program=str(prog), env={})
    program = str(prog)
    if case == "tty":
        config = LaunchConfig(program=str(prog), env={}, stdio=StdioMode.TTY, tty="/dev/null")
    elif case == "argv0":  # the user's relative path is the program's argv[0]
        config = LaunchConfig(program=os.path.relpath(prog), env={})
    elif case in ("not-executable", "no-header"):
        copy = tmp_path / "program"
        copy.write_bytes(prog.read_bytes() if case == "not-executable" else b"echo not ELF\n")
        copy.chmod(0o644 if case == "not-executable" else 0o755)
        config, program = LaunchConfig(program=str(copy), env={}), str(copy)
    assert launcher._shell_argv(config, program, {}) is None
    assert launcher._shell_argv(LaunchConfig(program=str(prog), env={}), str(prog), {}) is not None
