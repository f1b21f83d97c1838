"""`aliceserver cli` end to end: each command runs in this process, the daemon is the real
detached process with the real engine, the program a real C program built now. The fixture
stops the daemon (and with it the program) after every test."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from aliceserver.adapters.cli.client import read_pid
from aliceserver.adapters.cli.main import main
from aliceserver.adapters.cli.paths import DIR_ENV, DaemonPaths
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.gdb import gdb_env, gdb_path, printed_value, run_gdb

pytestmark = pytest.mark.timeout(180)

LOOP = marker_line("cli_prog.c", "loop")
DONE = marker_line("cli_prog.c", "done")
WAIT = 60.0  # seconds for anything the tests wait for (never asserted as a duration)


def _gone(pid: int) -> bool:
    try:  # reap it if it is ours (a subreaper may have adopted it), else ask the kernel
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return True
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_until_gone(pid: int, timeout: float = WAIT) -> bool:
    deadline = time.monotonic() + timeout
    while not _gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


class Cli:
    def __init__(self, paths: DaemonPaths, capsys: pytest.CaptureFixture[str]) -> None:
        self.paths = paths
        self.capsys = capsys
        self.pids: set[int] = set()

    def run(self, *argv: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        code = main(list(argv))
        out, err = self.capsys.readouterr()
        pid = read_pid(self.paths)
        if pid is not None:
            self.pids.add(pid)
        return code, out, err

    def ok(self, *argv: str) -> str:
        code, out, err = self.run(*argv)
        assert code == 0, f"{argv}: exit {code}\n{out}\n{err}"
        return out

    def json(self, *argv: str) -> dict[str, object]:
        data = json.loads(self.ok("--json", *argv))
        assert isinstance(data, dict)
        return data

    def stop_daemons(self) -> None:
        for pid in self.pids:
            if _gone(pid):
                continue
            os.kill(pid, signal.SIGTERM)  # a clean stop: the program is killed with it
            if not wait_until_gone(pid, 20):
                os.kill(pid, signal.SIGKILL)
                wait_until_gone(pid)


@pytest.fixture
def cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Cli]:
    directory = tempfile.mkdtemp(prefix="as-")  # short: a socket path is limited to 107 bytes
    monkeypatch.setenv(DIR_ENV, directory)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # trace stores
    runner = Cli(DaemonPaths(directory), capsys)
    try:
        yield runner
    finally:
        runner.stop_daemons()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def program(builder: Builder) -> str:
    return str(builder.build("cli_prog"))


def test_start_break_continue_context_stop(cli: Cli, program: str) -> None:
    started = cli.ok("start", program)
    assert started.startswith("cli_prog-1: not-started")
    assert cli.ok("break", f"cli_prog.c:{LOOP}").startswith(f"breakpoint 1: cli_prog.c:{LOOP} -> main")
    stop = cli.ok("continue", "--timeout", str(WAIT))
    lines = stop.splitlines()
    assert lines[0].startswith(f"cli_prog-1: stopped (breakpoint 1) in main at cli_prog.c:{LOOP}")
    assert any(line.startswith(f"-> {LOOP} |") for line in lines)
    assert "locals:" in lines and "  total = 0" in lines

    cli.ok("continue", "--timeout", str(WAIT))  # the second time round the loop
    where = cli.ok("where")
    assert "  i     = 1   (was 0)" in where.splitlines()  # against the stop before
    context = cli.json("context")
    assert context["location"] == {**context["location"], "function": "main", "line": LOOP}  # type: ignore[dict-item]
    assert cli.ok("print", "total", "+", "10") == "total + 10 = 10   (int)\n"
    finish = cli.ok("step")
    assert "in add at cli_prog.c" in finish.splitlines()[0]
    assert "returned: (int) 1" in cli.ok("finish")
    code, _, err = cli.run("up")  # main is the outermost frame, as in gdb's bt (past-main off)
    assert code == 1 and err.startswith("error NO_FRAME:")
    listed = cli.ok("break", "list")
    assert listed.startswith(f"1: cli_prog.c:{LOOP} -> main at cli_prog.c:{LOOP}") and "hits 2" in listed

    code, out, err = cli.run("print", "nosuch")
    assert code == 1 and err.startswith("error NO_SYMBOL:")
    ended = cli.ok("stop")
    assert ended.startswith("cli_prog-1: ended, killed") and "step 0 total 0" in ended
    code, out, err = cli.run("context")
    assert code == 1 and "error NO_SESSION" in err
    status = cli.ok("status")
    assert f"in {cli.paths.directory}" in status and "no sessions" in status


def test_the_daemon_directory_and_socket_are_private(cli: Cli) -> None:
    cli.ok("output")  # starts the daemon
    directory, sock = os.stat(cli.paths.directory), os.stat(cli.paths.socket)
    assert stat.S_IMODE(directory.st_mode) == 0o700 and directory.st_uid == os.geteuid()
    assert stat.S_ISSOCK(sock.st_mode) and stat.S_IMODE(sock.st_mode) == 0o600
    assert sock.st_uid == os.geteuid()

    os.chmod(cli.paths.directory, 0o755)
    code, out, err = cli.run("status")
    assert code == 3 and "must be 0700" in err
    os.chmod(cli.paths.directory, 0o700)
    os.chmod(cli.paths.socket, 0o666)
    code, out, err = cli.run("status")
    assert code == 3 and "must be 0600" in err
    os.chmod(cli.paths.socket, 0o600)
    assert "no sessions" in cli.ok("status")


def test_idle_exit(cli: Cli) -> None:
    cli.ok("--idle-timeout", "0.5", "output")
    pid = read_pid(cli.paths)
    assert pid is not None
    assert wait_until_gone(pid), "the idle daemon did not exit"
    assert not os.path.exists(cli.paths.socket) and not os.path.exists(cli.paths.pid_file)
    assert cli.ok("status") == "no daemon running (the next command starts one)\n"
    code, out, err = cli.run("output")  # a clean exit: the next daemon starts silently
    assert code == 0 and err == ""


def test_output_is_buffered_while_no_command_runs(cli: Cli, program: str) -> None:
    cli.ok("start", "--break", f"cli_prog.c:{DONE}", program, "--", "slow")
    running = cli.ok("continue", "--timeout", "0")
    assert running.startswith("cli_prog-1: running")
    deadline = time.monotonic() + WAIT
    while True:  # the program prints and stops while no command runs
        sessions = cli.json("status")["sessions"]
        assert isinstance(sessions, list) and len(sessions) == 1
        if sessions[0]["state"] == "stopped":
            break
        assert time.monotonic() < deadline, "the program did not reach the breakpoint"
        time.sleep(0.1)
    output = cli.ok("output", "--events")
    assert [line for line in output.splitlines() if line.startswith("slow")] == [f"slow {i}" for i in range(5)]
    assert output.splitlines()[-1].startswith("-- cli_prog-1: stopped (breakpoint)")
    assert cli.ok("output") == ""  # shown once
    assert cli.ok("output", "--tail", "2") == "slow 3\nslow 4\n"
    cli.ok("continue", "--timeout", str(WAIT))  # to the exit
    followed = cli.ok("output", "--follow")
    assert followed == "done 3\n"


def test_a_crashed_daemon_is_noticed_and_replaced(cli: Cli, program: str) -> None:
    cli.ok("start", program)
    pid = read_pid(cli.paths)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert wait_until_gone(pid)
    code, out, err = cli.run("status")
    assert code == 0 and out.startswith("no daemon running")
    code, out, err = cli.run("break", "list")
    assert "has died (crashed or killed)" in err and "starting a new one" in err
    assert code == 1 and "NO_SESSION" in err  # the new daemon has no sessions
    assert read_pid(cli.paths) not in (None, pid)


def test_trace_and_query_from_the_command_line(cli: Cli, program: str) -> None:
    cli.ok("start", program)
    traced = cli.ok("trace", "add", "add", "nothing_*")
    assert "traced: add" in traced and "unmatched: nothing_*" in traced
    cli.ok("continue", "--timeout", str(WAIT))
    calls = cli.ok("query", "--kind", "call", "--function", "add").splitlines()
    assert [line.split("-> ")[1] for line in calls[:3]] == ["add(a=0, b=0)", "add(a=0, b=1)", "add(a=1, b=2)"]
    returned = cli.json("query", "--kind", "return", "--returned", "3")
    assert returned["total"] == 1
    assert "1 functions traced, 3 calls" in cli.ok("trace", "status")


def test_the_console_script_entry(cli: Cli) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "aliceserver", "cli", "status"],
        capture_output=True, text=True, timeout=WAIT, check=False,
    )  # fmt: skip
    assert result.returncode == 0 and result.stdout.startswith("no daemon running"), result


def test_library_values_as_gdb_prints_them_and_children_paged(cli: Cli, builder: Builder) -> None:
    """C++ std values read as gdb's print shows them (the printers' summaries with their
    children), cut to the reply budget; a 100,000-element vector's elements come a page at
    a time, each reply naming the command for the next page."""
    if find_cxx() is None or gdb_path() is None:
        pytest.skip("needs g++ and gdb (the oracle)")
    program = MoreBuilder(builder.cache_dir).build_cpp("client_cpp")
    ready = f"client_cpp.cpp:{marker_line(PROGRAMS_DIR / 'client_cpp.cpp', 'ready')}"
    names = ["numbers", "ages", "name", "owned"]
    replies = run_gdb(program, [f"break {ready}", "run", *(f"print {n}" for n in names)], env=gdb_env())
    expected = {name: printed_value(reply) for name, reply in zip(names, replies[2:], strict=True)}
    if "std::vector of length 3" not in expected["numbers"]:
        pytest.skip(f"gdb prints no libstdc++ printers here: {expected['numbers']}")

    cli.ok("start", "--break", ready, str(program))
    stop = cli.ok("continue", "--timeout", str(WAIT)).splitlines()
    rows = [line.split(" = ", 1) for line in stop[stop.index("locals:") + 1 :] if " = " in line]
    shown = {name.strip(): value for name, value in rows}  # the table's padded names
    assert {name: shown[name] for name in names} == expected
    assert cli.ok("print", "numbers") == f"numbers = {expected['numbers']}   (std::vector<int, std::allocator<int> >)\n"
    assert cli.ok("print", "ages").startswith(f"ages = {expected['ages']}   (std::map<")

    printed = cli.json("print", "big")  # 200 elements as gdb's print: cut to the budget
    assert str(printed["value"]).startswith("std::vector of length 100000, capacity 100000 = {0, 1, 2,")
    assert len(str(printed["value"])) <= 240 and printed["children"] == 100000
    omitted = printed["omitted"]
    assert isinstance(omitted, list) and [o["how"] for o in omitted] == ["debug_variables path=big"]
    assert cli.ok("print", "big").splitlines()[-1].endswith("(expand big)")

    page = cli.ok("expand", "big", "--start", "99990", "--count", "5").splitlines()
    assert page[1:6] == [f"  [{i}] = {i}   (int)" for i in range(99990, 99995)]
    assert page[-1] == "omitted: big: children 99995..99999 (expand big --start 99995 --count 5)"
    asked = cli.json("expand", "big", "--count", "100000")  # one page of the budget's size
    variable = asked["variable"]
    assert isinstance(variable, dict) and len(variable["members"]) == 25
    assert len(json.dumps(asked)) < 16000
    assert cli.ok("expand", "ages").splitlines()[1:] == ['  ["ann"] = 31   (int)', '  ["bob"] = 42   (int)']


FAILING_MAP_PRINTER = '''
import gdb

class Failing:
    def __init__(self, value):
        self.value = value

    def to_string(self):
        return "a map that fails"

    def display_hint(self):
        return "map"

    def children(self):
        yield "k", 1
        yield "v", 2
        raise RuntimeError("this printer fails")

def lookup(value):
    if str(gdb.types.get_basic_type(value.type)).startswith("std::map<"):
        return Failing(value)
    return None

gdb.current_objfile().pretty_printers.append(lookup)
'''


def test_a_page_shows_where_a_map_printer_failed(cli: Cli, builder: Builder, tmp_path: Path) -> None:
    """A map printer whose children raise after one pair: the page shows the pair and the
    error, as gdb's var objects list it (the pairs' tools never drop it). The script beside
    the program runs only from a safe path (`--auto-load-safe-path`): without it, it is
    declined with gdb's warning and libstdc++'s printer shows the map."""
    if find_cxx() is None:
        pytest.skip("needs g++")
    copy = tmp_path / "client_cpp"
    shutil.copy2(MoreBuilder(builder.cache_dir).build_cpp("client_cpp"), copy)
    (tmp_path / "client_cpp-gdb.py").write_text(FAILING_MAP_PRINTER)  # auto-loaded beside it
    ready = f"client_cpp.cpp:{marker_line(PROGRAMS_DIR / 'client_cpp.cpp', 'ready')}"
    cli.ok("start", "--break", ready, str(copy))
    cli.ok("continue", "--timeout", str(WAIT))
    declined = cli.ok("expand", "ages")
    assert declined.splitlines()[1:] == ['  ["ann"] = 31   (int)', '  ["bob"] = 42   (int)'], declined
    said = cli.ok("output")
    assert f'warning: File "{tmp_path}/client_cpp-gdb.py" auto-loading has been declined by your' in said, said
    assert f"\tadd-auto-load-safe-path {tmp_path}/client_cpp-gdb.py\n" in said
    cli.ok("stop")
    cli.ok("start", "--auto-load-safe-path", str(tmp_path), "--break", ready, str(copy))
    cli.ok("continue", "--timeout", str(WAIT))
    listed = cli.ok("expand", "ages").splitlines()
    assert listed[1].startswith("  [1] = 2   (") and listed[2] == "  [2] = <error: this printer fails>", listed
