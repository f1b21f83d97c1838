"""gdb as a test oracle: run a list of commands in one batch session and parse what it prints.

`run_gdb(program, commands)` starts `gdb -nx -batch` with a small driver script (gdb's own
Python) that runs each CLI command, catches its error, and after each command records where
the selected thread stands (function, file, line, pc, thread) through gdb's Python API. The
command's printed text (stop announcements, `Value returned is ...`, `bt`, `info locals`,
`print`) is kept verbatim in `GdbReply.output`; the parsers below turn it into values.

The program's own stdin/stdout/stderr go to /dev/null (`run` gets `</dev/null >/dev/null
2>/dev/null` appended when it has no redirection) so that only gdb writes to the pipe.
LINES and COLUMNS are removed from the inferior's environment, so that a program run under
gdb sees the same environment (and so the same stack addresses) as one run by the engine
with the same `env`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

_TOKEN = "@@ALICE-GDB@@"

# Runs inside gdb. {commands} is replaced by a JSON list; it prints markers around each command.
_DRIVER = r"""
import json
import gdb

COMMANDS = json.loads({commands!r})
TOKEN = {token!r}

def where():
    try:
        thread = gdb.selected_thread()
        if thread is None or not thread.is_valid():
            return None
        frame = gdb.selected_frame()
    except gdb.error:
        return None
    sal = frame.find_sal()
    path = None
    if sal.symtab is not None:
        try:
            path = sal.symtab.fullname()
        except gdb.error:
            path = sal.symtab.filename
    return {{
        "function": frame.name(),
        "file": path,
        "line": sal.line if sal.symtab is not None and sal.line else None,
        "pc": frame.pc(),
        "lwp": thread.ptid[1],
        "thread_num": thread.num,
    }}

KINDS = {{
    gdb.NORMAL_FRAME: "normal",
    gdb.INLINE_FRAME: "inline",
    gdb.TAILCALL_FRAME: "tailcall",
    gdb.SIGTRAMP_FRAME: "sigtramp",
}}

def frames():
    out = []
    frame = gdb.newest_frame()
    while frame is not None:
        sal = frame.find_sal()
        path = None
        if sal.symtab is not None:
            path = sal.symtab.filename
        out.append({{
            "function": frame.name(),
            "file": path,
            "line": sal.line if sal.symtab is not None and sal.line else None,
            "pc": frame.pc(),
            "kind": KINDS.get(frame.type(), "other"),
            "library": gdb.solib_name(frame.pc()),
        }})
        frame = frame.older()
    return out

for index, command in enumerate(COMMANDS):
    gdb.write("\n%s BEGIN %d\n" % (TOKEN, index))
    error = None
    try:
        if command == "@frames":
            gdb.write(json.dumps(frames()) + "\n")
        else:
            gdb.execute(command)
    except gdb.error as exc:
        error = str(exc)
    except KeyboardInterrupt:
        error = "interrupted"
    gdb.flush()
    record = {{"error": error, "where": where()}}
    gdb.write("\n%s END %d %s\n" % (TOKEN, index, json.dumps(record)))
    gdb.flush()
"""

_PREAMBLE = (
    "set pagination off",
    "set width 0",
    "set height 0",
    "set confirm off",
    "set print pretty off",
    "unset environment LINES",
    "unset environment COLUMNS",
)


class GdbFailure(RuntimeError):
    """gdb could not be run, or its output was not understood."""


@dataclass(frozen=True)
class GdbWhere:
    """Where the selected thread stands after a command (None fields: not known)."""

    function: str | None
    file: str | None
    line: int | None
    pc: int
    lwp: int
    thread_num: int


@dataclass(frozen=True)
class GdbReply:
    command: str
    output: str  # everything gdb printed for the command (stop announcements included)
    error: str | None  # the gdb.error message, when the command failed
    where: GdbWhere | None  # None when there is no live thread


@dataclass(frozen=True)
class GdbFrame:
    """One line of `bt`."""

    level: int
    function: str | None  # "<signal handler called>" for a signal trampoline in `bt` text
    file: str | None
    line: int | None
    pc: int | None  # `bt` text: None for frame 0 and inlined frames (no address printed)
    library: str | None  # `bt`: "from /lib/..." without line info; `@frames`: the solib
    kind: str = "normal"  # `@frames` only: normal, inline, tailcall, sigtramp

    @property
    def signal_handler(self) -> bool:
        return self.kind == "sigtramp" or self.function == "<signal handler called>"


def gdb_path() -> str | None:
    """Path of gdb, or None when it is not installed."""
    return shutil.which("gdb")


def _with_redirects(command: str) -> str:
    words = command.split()
    if words and words[0] in ("run", "r", "start", "starti") and ">" not in command:
        return command + " </dev/null >/dev/null 2>/dev/null"
    return command


def _kill_session(session: int) -> None:
    """SIGKILL every process of the session `session` (gdb and its inferior)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if len(fields) > 3 and int(fields[3]) == session:
            try:
                os.kill(int(entry), signal.SIGKILL)
            except ProcessLookupError:
                pass


def run_gdb(
    program: Path | str,
    commands: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    timeout: float = 60.0,
    preamble: Sequence[str] = _PREAMBLE,
    options: Sequence[str] = (),
) -> list[GdbReply]:
    """Run `commands` in one `gdb -nx -batch` session on `program`; one reply per command;
    `options` go before the driver (`-iex` commands run before the program is read)."""
    gdb = gdb_path()
    if gdb is None:
        raise GdbFailure("gdb is not installed")
    wanted = [*preamble, *(_with_redirects(c) for c in commands)]
    with tempfile.TemporaryDirectory(prefix="alice-gdb-") as tmp:
        driver = Path(tmp) / "driver.py"
        driver.write_text(_DRIVER.format(commands=json.dumps(wanted), token=_TOKEN))
        process = subprocess.Popen(
            [gdb, "-nx", "-batch", *options, "-x", str(driver), str(program)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,
        )
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_session(process.pid)
            process.kill()
            process.communicate()
            raise GdbFailure(f"gdb timed out after {timeout:.0f}s on {commands!r}") from None
    replies = _split(out, wanted)
    if len(replies) != len(wanted):
        raise GdbFailure(
            f"gdb answered {len(replies)} of {len(wanted)} commands; stderr:\n{err}\nstdout:\n{out}"
        )
    return replies[len(preamble) :]


_BEGIN = re.compile(re.escape(_TOKEN) + r" BEGIN (\d+)\n")
_END = re.compile(re.escape(_TOKEN) + r" END (\d+) (.*)\n")


def _split(out: str, commands: Sequence[str]) -> list[GdbReply]:
    replies: list[GdbReply] = []
    position = 0
    while True:
        begin = _BEGIN.search(out, position)
        if begin is None:
            return replies
        end = _END.search(out, begin.end())
        if end is None or end.group(1) != begin.group(1):
            return replies
        index = int(begin.group(1))
        record = json.loads(end.group(2))
        text = out[begin.end() : end.start()]
        if text.endswith("\n"):
            text = text[:-1]  # the newline the END marker starts with
        place = record.get("where")
        where = (
            GdbWhere(
                function=place["function"],
                file=place["file"],
                line=place["line"],
                pc=int(place["pc"]),
                lwp=int(place["lwp"]),
                thread_num=int(place["thread_num"]),
            )
            if place
            else None
        )
        replies.append(GdbReply(commands[index], text, record.get("error"), where))
        position = end.end()


# --- parsers --------------------------------------------------------------------------

_PRINT = re.compile(r"^\$\d+ = (.*)$", re.S)


def printed_value(reply: GdbReply) -> str:
    """The value of a `print EXPR` reply (`$3 = {a = 1}` -> `{a = 1}`)."""
    if reply.error is not None:
        raise GdbFailure(f"{reply.command!r} failed: {reply.error}")
    match = _PRINT.match(reply.output.strip())
    if match is None:
        raise GdbFailure(f"{reply.command!r} printed no value: {reply.output!r}")
    return match.group(1).strip()


_ASSIGN = re.compile(r"^([A-Za-z_$][\w$:<>]*) = (.*)$")


def name_values(reply: GdbReply) -> list[tuple[str, str]]:
    """`info locals` / `info args` as (name, value) pairs, in gdb's order."""
    if reply.error is not None:
        raise GdbFailure(f"{reply.command!r} failed: {reply.error}")
    text = reply.output.strip()
    if text in ("No locals.", "No arguments.", "No symbol table info available."):
        return []
    pairs: list[tuple[str, str]] = []
    for line in text.splitlines():
        match = _ASSIGN.match(line)
        if match:
            pairs.append((match.group(1), match.group(2)))
        elif pairs:  # a value that spans lines
            name, value = pairs[-1]
            pairs[-1] = (name, value + "\n" + line)
        else:
            raise GdbFailure(f"unexpected line in {reply.command!r}: {line!r}")
    return pairs


_FRAME = re.compile(
    r"^#(?P<level>\d+)\s+(?:0x(?P<pc>[0-9a-f]+) in )?(?P<function>.+?) \((?P<args>.*)\)"
    r"(?: at (?P<file>\S+):(?P<line>\d+)| from (?P<library>\S+))?$"
)
_SIGNAL_FRAME = re.compile(r"^#(?P<level>\d+)\s+<signal handler called>$")


def backtrace(reply: GdbReply) -> list[GdbFrame]:
    """The frames of a `bt` reply."""
    if reply.error is not None:
        raise GdbFailure(f"{reply.command!r} failed: {reply.error}")
    frames: list[GdbFrame] = []
    for line in reply.output.splitlines():
        if not line.startswith("#"):
            continue  # "(More stack frames follow...)" and the like
        signal_frame = _SIGNAL_FRAME.match(line)
        if signal_frame:
            frames.append(
                GdbFrame(
                    int(signal_frame["level"]),
                    "<signal handler called>",
                    None,
                    None,
                    None,
                    None,
                    kind="sigtramp",
                )
            )
            continue
        match = _FRAME.match(line)
        if match is None:
            raise GdbFailure(f"unexpected backtrace line: {line!r}")
        frames.append(
            GdbFrame(
                level=int(match["level"]),
                function=match["function"],
                file=match["file"],
                line=int(match["line"]) if match["line"] else None,
                pc=int(match["pc"], 16) if match["pc"] else None,
                library=match["library"],
            )
        )
    return frames


def frames(reply: GdbReply) -> list[GdbFrame]:
    """The frames of an `@frames` reply (gdb's Python view: kinds, pcs, solibs), to main."""
    if reply.error is not None:
        raise GdbFailure(f"{reply.command!r} failed: {reply.error}")
    rows = json.loads(reply.output.strip())
    return [
        GdbFrame(
            level=level,
            function=row["function"],
            file=row["file"],
            line=row["line"],
            pc=int(row["pc"]),
            library=row["library"],
            kind=row["kind"],
        )
        for level, row in enumerate(rows)
    ]


def up_to_main(frames: Sequence[GdbFrame], main: str = "main") -> list[GdbFrame]:
    """The frames from the innermost to the first one named `main` (included)."""
    for index, frame in enumerate(frames):
        if frame.function == main:
            return list(frames[: index + 1])
    return list(frames)


_RETURNED = re.compile(r"^Value returned is \$\d+ = (.*)$", re.M)


def returned_value(reply: GdbReply) -> str | None:
    """The `Value returned is $1 = ...` part of a `finish` reply (None: a void function)."""
    match = _RETURNED.search(reply.output)
    return match.group(1).strip() if match else None


_BREAK_AT = re.compile(r"^Breakpoint \d+ at 0x([0-9a-f]+)", re.M)
_LOCATION_ROW = re.compile(r"^\d+(?:\.\d+)?\s+.*?\s(0x[0-9a-f]+)\s+in\s+(.+?)(?: at (\S+):(\d+))?$")


def breakpoint_addresses(reply: GdbReply) -> list[int]:
    """Addresses of the locations in an `info breakpoints` reply (or a `break` reply)."""
    if reply.error is not None:
        raise GdbFailure(f"{reply.command!r} failed: {reply.error}")
    addresses: list[int] = []
    for line in reply.output.splitlines():
        match = _LOCATION_ROW.match(line.strip())
        if match:
            addresses.append(int(match.group(1), 16))
    if not addresses:
        addresses = [int(m.group(1), 16) for m in _BREAK_AT.finditer(reply.output)]
    return addresses


def breakpoint_rows(reply: GdbReply) -> list[tuple[int, str, str | None, int | None]]:
    """(address, function, file, line) of every location row of `info breakpoints`.

    A breakpoint with several locations prints a header row `<MULTIPLE>` (skipped) and
    one row per location (`1.1 y 0x... in f at file.c:3`).
    """
    rows: list[tuple[int, str, str | None, int | None]] = []
    for line in reply.output.splitlines():
        match = _LOCATION_ROW.match(line.strip())
        if match:
            rows.append(
                (
                    int(match.group(1), 16),
                    match.group(2),
                    match.group(3),
                    int(match.group(4)) if match.group(4) else None,
                )
            )
    return rows


def stop_line(reply: GdbReply) -> int | None:
    """The line gdb stopped at after an execution command (from its Python view)."""
    return reply.where.line if reply.where is not None else None


def gdb_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """A small fixed environment for both gdb's inferior and the engine's.

    The same environment gives the same stack layout, so stack addresses printed by both
    agree (run both from the same directory); a fixed one keeps variables like PYTEST_CURRENT_TEST (which changes between a
    fixture's setup and a test's call) out of it.
    """
    source = os.environ if base is None else base
    env = {"PATH": source.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    if "HOME" in source:
        env["HOME"] = source["HOME"]
    env["PWD"] = os.getcwd()  # gdb starts the program through /bin/sh, which exports PWD
    return env


def gdb_outputs_at(program: Path | str, location: str, commands: Sequence[str], **options: Any) -> list[str]:
    """What each of gdb's console commands prints (or its error) at the first stop at
    `location` (the program run with gdb_env(): gdb's stack addresses); `options` as
    run_gdb takes them."""
    replies = run_gdb(program, [f"break {location}", "run", *commands], env=gdb_env(), **options)
    return [(r.error if r.error else r.output).strip("\n") for r in replies[2:]]
