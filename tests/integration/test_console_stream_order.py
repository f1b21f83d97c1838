"""What the console writes on its error stream comes after what it said before on its
output, as gdb writes them: at a stop in a function whose source file is gone, the
`Breakpoint 1, ...` line, then `3\tgone.c: No such file or directory.` (the error
stream's), both on the one terminal.

Real build (gcc, the source file removed after), `python -m aliceserver` and gdb 13 each
on a pseudo-terminal of their own, the same commands, the same order asserted of both.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.terminal import PROMPT, Terminal, debugger_command, debuggers

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    root = tmp_path_factory.mktemp("stream-order")
    (root / "gone.c").write_text("int gone_function(int v)\n{\n    return v + 1;\n}\n")
    (root / "main.c").write_text(
        "int gone_function(int);\nint main(void) { return gone_function(1) - 2; }\n"
    )
    subprocess.run(
        ["gcc", "-g", "-O0", "main.c", "gone.c", "-o", "prog"], cwd=root, check=True, timeout=120
    )
    (root / "gone.c").unlink()
    return root / "prog"


@pytest.mark.parametrize("which", debuggers())
def test_the_error_stream_comes_after_what_was_said_before(
    program: Path, tmp_path: Path, which: str
) -> None:
    argv, env = debugger_command(which, tmp_path)
    argv += ["-nx", "-q", "-ex", "set confirm off", str(program)]
    terminal = Terminal(argv, env, program.parent)
    try:
        terminal.read_until(PROMPT)
        terminal.command("break gone_function")
        missing = "3\tgone.c: No such file or directory."
        stop = terminal.command("run")
        assert stop.index("Breakpoint 1, gone_function (v=1) at gone.c:3") < stop.index(missing), (
            stop
        )
        terminal.command("up")
        frame = terminal.command("down")
        assert frame.index("#0  gone_function (v=1) at gone.c:3") < frame.index(missing), frame
    finally:
        os.write(terminal.fd, b"kill\nquit\n")
        assert terminal.close() == 0
