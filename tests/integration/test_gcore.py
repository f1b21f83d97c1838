"""gcore from every front end (the console, MI, DAP's aliceserver/gcore request and debug
console, the agent's debug_gcore): the core ours writes of a live stop is opened in gdb 13
and compared with gdb's own gcore of the same stop (and gdb's live view of it): every
thread's backtrace with its locals, info threads, info registers, globals; and in lldb, the
same frames. Refusals (no process, a core, running) are gdb's words."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.agent_client import AgentClient, in_memory_server
from tests.support.build import DEFAULT_FLAGS, PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.cores import require_gdb
from tests.support.dap_client import DapClient

pytestmark = pytest.mark.timeout(240)

ALICE = [sys.executable, "-m", "aliceserver"]
THREADS = "gcore_threads.c"
CPP = "gcore_cpp.cpp"
# gdb puts LINES and COLUMNS in the program's environment, Python LC_CTYPE in a C locale
# (PEP 538), and `_` names the debugger: the environment's size moves the stack, so without
# them both debuggers start the program alike (and with ASLR off, at the same addresses).
_PLAIN_ENV = [f"unset environment {name}" for name in ("LINES", "COLUMNS", "LC_CTYPE", "_", "PYTHONPATH")]
_THREAD_VIEW = ["info threads", "thread apply all bt full", "thread apply all info registers",
                "p total", "p scale", "p $_siginfo.si_signo", "p $_siginfo.si_code",
                "x/8xb $pc"]  # fmt: skip  (the code at the breakpoint, without our int3)
# where front ends start the program in another environment (its stack elsewhere): no registers
_SHAPE_VIEW = ["info threads", "thread apply all bt full", "p total", "p scale", "p $_siginfo.si_signo"]
_CPP_VIEW = ["bt full", "info locals", "p *this", "p this->counts_", "up", "info locals", "info registers",
             "p $_siginfo.si_signo"]  # fmt: skip
_SAVED = re.compile(r"^Saved corefile (.+)$", re.M)


def _run(argv: Sequence[str], cwd: Path, stdin: str | None = None) -> str:
    # one environment for every debugger and run (pytest's own changes between phases)
    env = {name: os.environ[name] for name in ("PATH", "HOME", "PYTHONPATH") if name in os.environ}
    result = subprocess.run(list(argv), cwd=cwd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=120, env=env)  # fmt: skip
    return result.stdout


def _batch(debugger: Sequence[str], program: Path, commands: Sequence[str], cwd: Path,
           core: Path | None = None) -> str:  # fmt: skip
    argv = [*debugger, "-nx", "-batch", "-ex", "set pagination off", "-ex", "set width 0"]
    for command in commands:
        argv += ["-ex", command]
    return _run([*argv, str(program), *([str(core)] if core else [])], cwd)


def _gdb(program: Path, commands: Sequence[str], cwd: Path, core: Path | None = None) -> str:
    # no shell between gdb and the program (ours has none): a shell adds PWD, SHLVL, `_`
    return _batch([require_gdb()], program, ["set startup-with-shell off", *commands], cwd, core)


def _ours(program: Path, commands: Sequence[str], cwd: Path, core: Path | None = None) -> str:
    return _batch(ALICE, program, commands, cwd, core)


def _gdb_gcore(program: Path, location: str, core: Path, view: Sequence[str] = ()) -> str:
    """gdb runs `program` to `location` and saves its core: its output (`view` printed live)."""
    output = _gdb(program, [*_PLAIN_ENV, f"break {location}", "run", *view, f"gcore {core}"], core.parent)
    assert core.is_file(), output
    return output


def _normalized(text: str, drop_addresses: bool = False) -> str:
    """gdb's text with the run's thread ids numbered in order (LWP, futex values, registers),
    without the lines that name the core file or AVX-512's k registers (gdb 13 reads its own
    gcore's at Intel's offsets, zeros on this layout), nor start_thread's jmp_buf, and when
    asked without addresses."""
    tids = sorted({int(t) for t in re.findall(r"LWP (\d+)", text)})
    # eflags and r11 (eflags saved by syscall) hold flags, never a thread id: a run's low
    # ids (a fresh machine's 582 = 0x246) would be taken for them
    flags = re.compile(r"^\s*(eflags|r11)\s")
    for index, tid in enumerate(tids):
        number = re.compile(rf"\b({tid}|{tid:#x})\b")
        text = "\n".join(line if flags.match(line) else number.sub(f"TID{index}", line) for line in text.split("\n"))
    # `info threads` pads its Target Id column to the longest id: a run whose thread ids
    # have another number of digits pads it otherwise
    text = re.sub(r"(Target Id) +(Frame)", r"\1 \2", text)
    # and so do the columns around a thread id in the registers (rbp holding one in a join)
    text = re.sub(r"(TID\d+\)?) +", r"\1 ", re.sub(r" +(TID\d+)", r" \1", text))
    # a thread's cleanup state in its struct pthread (celtype) depends on where it was
    # scheduled when the core was taken: not the same from run to run, under gdb either
    text = re.sub(r"celtype = \d+", "celtype = N", text)
    drop = re.compile(r"^(k\d\s|\[New LWP|warning: |Saved corefile|\[Thread debugging|Using host"
                      r"|\s+unwind_buf = )")  # a jmp_buf's pointers are mangled with a per-process key
    lines = [line for line in text.splitlines() if line.strip() and not drop.match(line)]
    text = "\n".join(lines)
    if drop_addresses:
        text = re.sub(r"0x[0-9a-f]+", "0x?", text)
    return text


def _core_view(program: Path, core: Path, commands: Sequence[str], drop_addresses: bool = False) -> str:
    output = _gdb(program, commands, core.parent, core)
    assert "is not a core dump" not in output and "No such file" not in output, output
    return _normalized(output, drop_addresses)


def _threads(builder: Builder) -> Path:
    return builder.build("gcore_threads", DEFAULT_FLAGS)


def _report() -> str:
    return f"{THREADS}:{marker_line(THREADS, 'report')}"


@pytest.fixture
def gdb_core(builder: Builder, tmp_path: Path) -> Path:
    """gdb's gcore of the threads program stopped at report: the reference."""
    core = tmp_path / "gdb.core"
    _gdb_gcore(_threads(builder), _report(), core)
    return core


def test_console_gcore_of_threads_reads_in_gdb_as_gdbs_own(builder: Builder, tmp_path: Path, gdb_core: Path) -> None:
    program = _threads(builder)
    live = _normalized(_gdb(program, [*_PLAIN_ENV, f"break {_report()}", "run", "thread apply all bt full"], tmp_path))
    output = _ours(program, [*_PLAIN_ENV, f"break {_report()}", "run", "gcore ours.core", "generate-core-file"], tmp_path)
    ours = tmp_path / "ours.core"
    saved = _SAVED.findall(output)
    assert saved[0] == "ours.core" and re.fullmatch(r"core\.\d+", saved[1]), output
    assert (tmp_path / saved[1]).is_file()
    # gdb's words around it: the same warnings (memory it could not read) as gdb's gcore
    theirs_said = _gdb_gcore(program, _report(), tmp_path / "again.core")
    before = output[: output.index("Saved corefile ours.core")]  # warnings come first, as gdb's
    warnings = re.findall(r"^warning: Memory read failed.*$", before, re.M)
    assert warnings == re.findall(r"^warning: Memory read failed.*$", theirs_said, re.M)
    view = _core_view(program, ours, _THREAD_VIEW)
    assert view == _core_view(program, gdb_core, _THREAD_VIEW)
    assert f"report (index=1, squared=1) at {PROGRAMS_DIR / THREADS}:" in view
    assert view.count("\nThread ") + view.startswith("Thread ") >= 4
    # every thread's frames and locals as gdb showed them live at the same stop
    frames = _normalized(_gdb(program, ["thread apply all bt full"], tmp_path, ours))
    assert _bt_blocks(frames) == _bt_blocks(live)


def _bt_blocks(text: str) -> dict[str, str]:
    """`thread apply all bt` by thread (its pthread address), without the thread's name and
    number (a core's threads have no name; its signalled thread is number 1)."""
    blocks: dict[str, str] = {}
    for block in re.split(r"\n(?=Thread \d+ \()", "\n" + text):
        header = re.match(r"\s*Thread \d+ \(Thread (0x[0-9a-f]+) \(LWP \w+\)(?: \"[^\"]*\")?\):\n", block)
        if header:
            blocks[header.group(1)] = block[header.end() :].strip()
    assert len(blocks) == 4, text
    return blocks


def _cpp(builder: Builder) -> Path:
    if find_cxx() is None:
        pytest.skip("g++ is not installed")
    return MoreBuilder(builder.cache_dir).build_cpp("gcore_cpp")


def test_console_gcore_of_cpp_reads_in_gdb_as_gdbs_own(builder: Builder, tmp_path: Path) -> None:
    program = _cpp(builder)
    location = f"{CPP}:{marker_line(CPP, 'total')}"
    theirs = tmp_path / "gdb.core"
    live = _normalized(_gdb_gcore(program, location, theirs, _CPP_VIEW))
    output = _ours(program, [*_PLAIN_ENV, f"break {location}", "run", "gcore ours.core"], tmp_path)
    assert "Saved corefile ours.core" in output, output
    view = _core_view(program, tmp_path / "ours.core", _CPP_VIEW)
    assert view == _core_view(program, theirs, _CPP_VIEW)
    assert 'owner_ = "warehouse"' in view and '["bolts"] = 40' in view and "sum = 49" in view
    # the values gdb printed live at that stop
    for line in ("sum = 49", 'owner_ = "warehouse"', '["nuts"] = 2', "prices = std::vector of length 2"):
        assert line in live and line in view, line


def test_lldb_reads_the_same_frames(builder: Builder, tmp_path: Path, gdb_core: Path) -> None:
    lldb = shutil.which("lldb-16") or shutil.which("lldb")
    if lldb is None:
        pytest.skip("lldb is not installed")
    program = _threads(builder)
    _ours(program, [*_PLAIN_ENV, f"break {_report()}", "run", "gcore ours.core"], tmp_path)
    seen = []
    for core in (tmp_path / "ours.core", gdb_core):
        output = _run([lldb, "--no-lldbinit", "-b", "-c", str(core), str(program), "-o", "bt all"], tmp_path)
        frames = re.findall(r"^\s*\*? *(thread #\d+|frame #\d+: 0x[0-9a-f]+ \S+)", output, re.M)
        assert len(frames) > 12, output
        seen.append(frames)
    assert seen[0] == seen[1]
    assert any("report(index=1" in line for line in _run([lldb, "--no-lldbinit", "-b", "-c",
               str(tmp_path / "ours.core"), str(program), "-o", "bt all"], tmp_path).splitlines())  # fmt: skip


def test_mi_gcore_through_interpreter_exec_and_typed(builder: Builder, tmp_path: Path, gdb_core: Path) -> None:
    program = _threads(builder)
    commands = [*(f'-interpreter-exec console "{c}"' for c in _PLAIN_ENV), f"-break-insert {_report()}", "-exec-run", '-interpreter-exec console "gcore mi.core"',
                "gcore typed.core", "-gdb-exit"]  # fmt: skip
    output = _run([*ALICE, "-nx", "--interpreter=mi", str(program)], tmp_path, "\n".join(commands) + "\n")
    assert '~"Saved corefile mi.core\\n"' in output and '~"Saved corefile typed.core\\n"' in output, output
    reference = _core_view(program, gdb_core, _THREAD_VIEW)
    for name in ("mi.core", "typed.core"):
        assert _core_view(program, tmp_path / name, _THREAD_VIEW) == reference


@contextmanager
def _dap_at_report(program: Path, tmp_path: Path) -> Iterator[DapClient]:
    """A DAP session stopped at the threads program's report breakpoint."""
    client = DapClient.spawn(alice_argv(), validate=True, stderr=tmp_path / "adapter.log")
    try:
        client.call("initialize", {"adapterID": "alice"})
        client.call("launch", {"program": str(program), "cwd": str(tmp_path)})
        client.call("setBreakpoints", {"source": {"path": str(PROGRAMS_DIR / THREADS)},
                                       "breakpoints": [{"line": marker_line(THREADS, "report")}]})  # fmt: skip
        since = client.mark()
        client.call("configurationDone")
        assert client.wait_stop_or_exit(since)["event"] == "stopped"
        yield client
    finally:
        client.close()


def test_dap_request_and_debug_console(builder: Builder, tmp_path: Path, gdb_core: Path) -> None:
    program = _threads(builder)
    reference = _core_view(program, gdb_core, _SHAPE_VIEW, drop_addresses=True)
    with _dap_at_report(program, tmp_path) as client:
        body = client.call("aliceserver/gcore", {"path": str(tmp_path / "dap.core")})
        assert body["path"] == str(tmp_path / "dap.core") and body["size"] > 0
        assert all(w.startswith("Memory read failed") for w in body["warnings"])
        reply = client.call("evaluate", {"expression": f"gcore {tmp_path / 'console.core'}", "context": "repl"})
        assert f"Saved corefile {tmp_path / 'console.core'}" in reply["result"], reply
    for name in ("dap.core", "console.core"):
        assert _core_view(program, tmp_path / name, _SHAPE_VIEW, drop_addresses=True) == reference


def test_agent_tool(builder: Builder, tmp_path: Path, gdb_core: Path) -> None:
    program = _threads(builder)
    reference = _core_view(program, gdb_core, _SHAPE_VIEW, drop_addresses=True)

    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=str(program), breakpoints=[_report()])
        stop = await tools.call("debug_continue", timeout=60)
        assert stop["location"]["function"] == "report"
        saved = await tools.call("debug_gcore", path="agent.core", directory=str(tmp_path))
        assert saved["path"] == str(tmp_path / "agent.core") and saved["size"] > 0
        await tools.call("debug_stop")

    with in_memory_server() as run:
        run(body)
    assert _core_view(program, tmp_path / "agent.core", _SHAPE_VIEW, drop_addresses=True) == reference


def test_cli_gcore_asks_the_agent_tool_for_a_file_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from aliceserver.adapters.cli.commands import build_parser, plan_for
    from aliceserver.adapters.cli.format import format_reply

    monkeypatch.chdir(tmp_path)
    for argv, expected in ((["gcore"], {"directory": str(tmp_path)}),
                           (["gcore", "x.core"], {"path": "x.core", "directory": str(tmp_path)}),
                           (["generate-core-file", "y"], {"path": "y", "directory": str(tmp_path)})):  # fmt: skip
        plan = plan_for(build_parser().parse_args(argv))
        assert (plan.tool, plan.arguments) == ("debug_gcore", expected)
    said = format_reply("debug_gcore", {"path": "/w/core.7", "size": 9, "warnings": ["Memory read failed x."]}, False)
    assert said == "warning: Memory read failed x.\nSaved corefile /w/core.7"


def test_refusals_in_gdbs_words(builder: Builder, tmp_path: Path, gdb_core: Path) -> None:
    program = _threads(builder)
    # no process; a core file is none either; nor is what reads the program's symbols
    # before run (a setting's expression evaluated)
    for core, before in ((None, []), (gdb_core, []), (None, ["set print elements 2+1"])):
        ours = _ours(program, [*before, "gcore x.core"], tmp_path, core)
        theirs = _gdb(program, [*before, "gcore x.core"], tmp_path, core)
        refusal = "You can't do that without a process to debug."
        assert refusal in ours and refusal in theirs, (ours, theirs)
    assert not (tmp_path / "x.core").exists()
    unwritable = [f"break {_report()}", "run", "gcore /nonexistent/dir/x.core"]
    refusal = "Failed to open '/nonexistent/dir/x.core' for output."
    assert refusal in _ours(program, unwritable, tmp_path) and refusal in _gdb(program, unwritable, tmp_path)


def test_refused_while_running(builder: Builder, tmp_path: Path) -> None:
    """gdb 13 answers this with "Couldn't get registers: No such process." (it reads the
    running thread's registers and takes the failure for a dead process); ours says what gdb
    says of any command that needs the program stopped, and writes nothing."""
    program = builder.build("core_dump")  # "pause": its threads wait until killed
    commands = ["-gdb-set mi-async on", "-exec-arguments pause", "-exec-run", '-interpreter-exec console "gcore run.core"',
                "-exec-interrupt", "-gdb-exit"]  # fmt: skip
    output = _run([*ALICE, "-nx", "--interpreter=mi", str(program)], tmp_path, "\n".join(commands) + "\n")
    refusal = ("Cannot execute this command while the target is running.\\nUse the \\\"interrupt\\\" "
               "command to stop the target\\nand then try again.")
    assert f'^error,msg="{refusal}"' in output, output
    assert not (tmp_path / "run.core").exists()
