"""Every console command the MI console registers, with generated arguments, against a live
`python -m aliceserver -i=mi PROG`.

The command names come from the registry itself (console.register_all: the console
modules, breakpoint commands, dprintf, catchpoints, workflow and source-path commands), so
a command added tomorrow is fuzzed too. Each generated line goes to the server as a CLI
command with a token; its answer must be ^done, ^running or a gdb-style ^error, never an
internal error, and a marker command after it must be answered (the server is in step).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from aliceserver.adapters.mi import console
from aliceserver.adapters.mi.registry import CliRegistry, MiError
from tests.support.build import Builder
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import PROMPT

# Commands that end the session, let the program go, reach other processes or run code of
# any kind (shell, Python) are not drawn, nor a line that applies one of them.
_NEVER = {"quit", "detach", "attach", "shell", "python", "python-interactive"}
_APPLYING = {"faas", "taas", "tfaas", "thread", "frame"}
_MARKER = "987654"
_WORDS = ["main", "add", "argc", "arr", "pt", "pp->x", "1", "0", "-1", "2", "all", "on", "off",
          "$pc", "$_siginfo", "if", "thread", "frame", "apply", "-q", "--", "0x0", "/x", "mi_prog.c:30",
          "99999999999999999999", "'", '"', "<", ">", "2>&1", "SIGINT", "nostop", "end", "-s", "full",
          "registers", "breakpoints", "args", "locals", "confirm", "print", "pretty", "var", "=", "*"]  # fmt: skip
_ARGUMENT = st.lists(
    st.one_of(st.sampled_from(_WORDS), st.text(alphabet='abcxyz019 -_"\\*&$()[]{},=:.\t@!#%^;|~`?', max_size=6)),
    max_size=6,
).map(" ".join)
_PER_COMMAND = 4  # generated lines per command name; raise it to hunt longer
_FORMAT = st.sampled_from(["", "", "", "/x", "/4xw", "/s", "/r", "/m", "/", "/zz"])


def _registry() -> CliRegistry:
    registry = CliRegistry()
    console.register_all(registry)
    return registry


def _canonical(registry: CliRegistry, word: str) -> str | None:
    try:
        found = registry.lookup(word)
    except MiError:  # ambiguous
        return None
    return found[0] if found else None


def _allowed(registry: CliRegistry, name: str, argument: str) -> bool:
    canonical = _canonical(registry, name)
    if canonical in _NEVER:
        return False
    if canonical in _APPLYING:  # `taas q`, `thread apply all detach`
        return not any(_canonical(registry, word.strip("-!`")) in _NEVER for word in argument.split() if word)
    return True


def _stopped_in_add(mi: MiClient, program: Path, where: Path) -> None:
    """Undo what the last command's lines may have changed (the program, its directory,
    terminal and arguments, breakpoints) and stop in add() again."""
    mi.command("kill")
    for command in (f"-file-exec-and-symbols {program}", f"-environment-cd {where}", "-exec-arguments",
                    "tty", "-break-delete", "-break-insert add"):  # fmt: skip
        mi.ok(command)
    mi.ok("-exec-run")
    mi.read_until(lambda text: text.startswith("*stopped"))


@pytest.mark.timeout(600)
def test_every_console_command_answers_without_internal_error(builder: Builder, tmp_path: Path) -> None:
    registry = _registry()
    names = registry.names()
    assert {"print", "run", "dprintf", "catch", "commands", "directory", "ptype"} <= set(names)
    program = builder.build("mi_prog")
    mi = MiClient(["-i=mi", "-q", str(program)], cwd=tmp_path)
    tried: set[str] = set()
    token = 1000
    try:
        mi.prompt()

        # The server's state goes on from line to line: a case cannot be replayed, so the first
        # failing line is the report (no shrinking).
        @settings(max_examples=_PER_COMMAND, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(shape=_FORMAT, argument=_ARGUMENT)
        def fuzz(name: str, shape: str, argument: str) -> None:
            nonlocal token
            if not _allowed(registry, name, argument):
                return
            line = f"{name}{shape} {argument}".replace("\n", " ").replace("\r", " ")
            token += 1
            mi.send(f"{token}{line}")
            mi.send("end")  # closes a body `define`, `commands` or `document` opened
            mi.send(f"{_MARKER}-list-features")
            seen = mi.read_until(lambda text: text.startswith(f"{_MARKER}^"))
            mi.read_until(lambda text: text == PROMPT)
            tried.add(name)
            for answer in (text for text in seen if text.startswith(f"{token}^")):
                assert answer.split(",")[0].split("^")[1] in ("done", "running", "error"), (line, answer)
            internal = [text for text in seen if "internal error" in text.lower()]
            assert not internal, f"{line!r}: {internal[0]}"
            assert mi.process.poll() is None, f"the server died on {line!r}"

        for name in names:  # every name, at a stop in a running program: none left to chance
            _stopped_in_add(mi, program, tmp_path)
            fuzz(name)
        assert tried == {name for name in names if _canonical(registry, name) not in _NEVER}
        mi.ok("-list-features")
    finally:
        code = mi.close()
    assert code == 0
