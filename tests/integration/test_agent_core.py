"""Core files for agents: debug_core through the MCP server (the SDK's in-memory client) and
`aliceserver-cli core` through the real session daemon, on kernel cores of a multi-thread C
program and of a C++ program, compared with gdb 13 reading the same core: the crash context
(signal, fault address, thread), the stack, the locals, values, memory, registers, the
console; and what needs a live process refused in gdb's words, the session living on."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from tests.integration.test_cli_daemon import Cli, cli  # noqa: F401 (the daemon fixture)
from tests.support.agent_client import AgentClient, Body, in_memory_server
from tests.support.build import DEFAULT_FLAGS, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.cores import kernel_core, require_gdb

pytestmark = pytest.mark.timeout(240)

NOT_RUN = "The program is not being run."  # gdb's words for running a core
# gdb's `#N  [0xADDR in ]FUNC (ARGS) at FILE:LINE`
_FRAME = re.compile(r"^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+) \((.*?)\)(?: at (\S+):(\d+)| from \S+)?$", re.M)
_GDB_THREAD = re.compile(r"^([* ]) +\d+ +(?:Thread 0x[0-9a-f]+ \()?LWP (\d+)", re.M)
_CRASH_LINE = marker_line("core_cpp.cpp", "crash")


def gdb_sections(program: Path, core: Path, commands: Sequence[str]) -> list[str]:
    """gdb's output of each command, errors included (its warnings about the kernel's XSAVE
    notes on AVX-512 machines dropped)."""
    argv = [require_gdb(), "-nx", "-batch", "-ex", "set pagination off", "-ex", "set width 0"]
    for index, command in enumerate(commands):
        argv += ["-ex", f"echo @@{index}\\n", "-ex", command]
    result = subprocess.run([*argv, str(program), str(core)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=120, stdin=subprocess.DEVNULL)  # errors where they happen
    output = result.stdout
    output = re.sub(r"^\n?warning: Section `.reg-xstate/\d+' in core file too small\.\n", "", output, flags=re.M)
    parts = output.split("@@")[1:]
    assert len(parts) == len(commands), output
    return [part.partition("\n")[2].strip() for part in parts]


def gdb_frames(text: str, source: str) -> list[tuple[str, str, str]]:
    """(level, function, line) of each frame; library frames by level only (gdb and we may
    name an alias of the same code)."""
    return [(level, function, line) if path.endswith(source) else (level, "", "")
            for level, function, _args, path, line in _FRAME.findall(text)]  # fmt: skip


def our_frames(frames: Sequence[str], source: str) -> list[tuple[str, str, str]]:
    """The same from the agent's `#1 measure (core_dump.c:26)` lines."""
    found = []
    for text in frames:
        match = re.match(r"#(\d+) (\S+)(?: \[inlined\])? \((\S+?)(?::(\d+))?\)", text)
        assert match, text
        level, function, where, line = match.groups()
        found.append((level, function, line or "") if where == source else (level, "", ""))
    return found


def values_of(text: str) -> dict[str, str]:
    return dict(re.findall(r"^(\w+) = (.*)$", text, re.M))


def history_value(text: str) -> str:
    return re.sub(r"^\$\d+ = ", "", text.strip())


@pytest.fixture(scope="module")
def threads_core(tmp_path_factory: pytest.TempPathFactory, builder: Builder) -> Iterator[tuple[Path, Path]]:
    """main crashes on a wild pointer (0x1234) in libc's strlen while three workers wait."""
    require_gdb()
    program = builder.build("core_dump", DEFAULT_FLAGS + ("-pthread",))
    yield program, kernel_core(program, ["threads"], tmp_path_factory.mktemp("threads"))


@pytest.fixture(scope="module")
def cpp_core(tmp_path_factory: pytest.TempPathFactory, builder: Builder) -> Iterator[tuple[Path, Path]]:
    """A C++ crash whose frames hold std::vector and std::string."""
    require_gdb()
    if find_cxx() is None:
        pytest.skip("no C++ compiler")
    program = MoreBuilder(builder.cache_dir).build_cpp("core_cpp")
    yield program, kernel_core(program, [], tmp_path_factory.mktemp("cpp"))


@pytest.fixture
def in_memory() -> Iterator[Callable[[Body], None]]:
    with in_memory_server() as run:
        yield run


_THREADS_COMMANDS = (
    "info threads", "bt", "p $_siginfo._sifields._sigfault.si_addr", "info registers rip rsp",
    "frame 2", "info locals", "p counter", "p/x counter", "x/8xb &counter", "x/2xg $sp",
    'print measure("a")', "continue", "set var counter = 1", "thread 2", "info registers rip rsp",
)  # fmt: skip


def test_mcp_core_of_threads_reads_as_gdb(threads_core: tuple[Path, Path], in_memory: Callable[[Body], None]) -> None:
    program, core = threads_core
    (threads, bt, fault, registers, _frame2, main_locals, counter, counter_x, counter_bytes, stack_words,
     call_refused, continue_refused, write_refused, _thread2, worker_registers) = gdb_sections(program, core, _THREADS_COMMANDS)  # fmt: skip
    lwps = [int(lwp) for _, lwp in _GDB_THREAD.findall(threads)]
    crashed = next(int(lwp) for mark, lwp in _GDB_THREAD.findall(threads) if mark == "*")
    worker = lwps[1]  # gdb's thread 2
    assert continue_refused == NOT_RUN

    async def body(tools: AgentClient) -> None:
        opened = await tools.call("debug_core", core=str(core), program=str(program))
        stop = opened["stop"]
        assert (stop["reason"], stop["signal"], stop["description"]) == ("crash", "SIGSEGV", "Segmentation fault")
        assert int(stop["fault_address"], 16) == int(history_value(fault).split()[-1], 16) == 0x1234
        assert opened["thread"] == opened["pid"] == crashed and opened["threads"] == len(lwps)
        assert our_frames(opened["stack"], "core_dump.c") == gdb_frames(bt, "core_dump.c")
        assert our_frames(opened["stack"], "core_dump.c")[1:] == [("1", "measure", "26"), ("2", "main", "53")]
        assert opened["core"] == str(core) and "NO_PROCESS" in opened["message"]
        stack = await tools.call("debug_stack")
        assert stack["frames"] == opened["stack"]
        listed = await tools.call("debug_threads")
        assert sorted(t["id"] for t in listed["threads"]) == sorted(lwps)
        ours = (await tools.call("debug_registers", names=["rip", "rsp"]))["registers"]
        assert {n: int(v, 16) for n, v in ours.items()} == _registers(registers)
        ours = (await tools.call("debug_registers", names=["rip", "rsp"], thread=worker))["registers"]
        assert {n: int(v, 16) for n, v in ours.items()} == _registers(worker_registers)

        main = await tools.call("debug_select", frame=2)
        assert main["location"]["function"] == "main" and main["location"]["line"] == 53
        expected = values_of(main_locals)
        expected.update(re.findall(r"(\w+)=([^,)]+)", bt.splitlines()[2].split(" (", 1)[1]))  # argc, argv
        assert {name: main["locals"][name] for name in expected} == expected
        assert set(expected) == {"argc", "argv", "mode", "text", "threads"}
        assert (await tools.call("debug_evaluate", expression="counter"))["value"] == history_value(counter)
        memory = await tools.call("debug_memory", address="&counter", size=8)
        assert memory["hex"][0].split(": ")[1].split()[:8] == [b[2:] for b in counter_bytes.split()[2:]]
        console = {command: (await tools.call("debug_console", command=command))["output"]
                   for command in ("info locals", "p/x counter", "x/2xg $sp", "bt")}  # fmt: skip
        assert console["info locals"] == main_locals
        assert history_value(console["p/x counter"]) == history_value(counter_x)
        assert console["x/2xg $sp"] == stack_words
        assert gdb_frames(console["bt"], "core_dump.c") == gdb_frames(bt, "core_dump.c")
        code = await tools.call("debug_disassemble", count=2)
        assert code["instructions"][0].startswith("-> ")

        refused = await tools.fail("NO_PROCESS", "debug_evaluate", expression='measure("a")')
        assert refused["message"] == call_refused
        for tool, arguments in (("debug_continue", {}), ("debug_step", {}), ("debug_step", {"kind": "out"}),
                                ("debug_run_to", {"location": "fold"}), ("debug_pause", {}),
                                ("debug_console", {"command": "continue"}), ("debug_console", {"command": "next"}),
                                ("debug_console", {"command": "finish"})):  # fmt: skip
            refused = await tools.fail("NO_PROCESS", tool, **arguments)
            assert refused["message"] == NOT_RUN and str(core) in refused["hint"], (tool, refused)
        await tools.fail("UNSUPPORTED", "debug_restart")
        refused = await tools.fail("MEMORY_ERROR", "debug_set", target="counter", value="1")
        assert refused["message"] == write_refused and "read-only" in refused["hint"]
        refused = await tools.fail("MEMORY_ERROR", "debug_memory", address="&counter", write="01")
        assert refused["message"].startswith("Cannot access memory at address") and "read-only" in refused["hint"]
        after = await tools.call("debug_context")  # the session lives on, as it was
        assert after["state"] == "stopped" and after["stop"] == stop and after["frame"] == 2
        sessions = (await tools.call("debug_sessions"))["sessions"]
        assert [(s["state"], s["core"]) for s in sessions] == [("stopped", str(core))]
        ended = await tools.call("debug_stop")
        assert ended["program"] == f"core file closed ({core})"
        await tools.fail("NO_SESSION", "debug_context")

    in_memory(body)


def _registers(text: str) -> dict[str, int]:
    return {name: int(value, 16) for name, value in re.findall(r"^(\w+)\s+(0x[0-9a-f]+)", text, re.M)}


def test_mcp_core_of_cpp_names_its_program(cpp_core: tuple[Path, Path], in_memory: Callable[[Body], None]) -> None:
    program, core = cpp_core
    bt, fault, args, local, _frame1, main_locals = gdb_sections(program, core, (
        "bt", "p $_siginfo._sifields._sigfault.si_addr", "info args", "info locals", "frame 1", "info locals"))

    async def body(tools: AgentClient) -> None:
        opened = await tools.call("debug_core", core=str(core))  # the program the core names
        assert opened["location"]["function"] == "crash" and opened["location"]["line"] == _CRASH_LINE
        assert opened["stop"]["signal"] == "SIGSEGV"
        assert int(opened["stop"]["fault_address"], 16) == int(history_value(fault).split()[-1], 16)
        assert our_frames(opened["stack"], "core_cpp.cpp") == gdb_frames(bt, "core_cpp.cpp")
        assert opened["locals"] == values_of(args) | values_of(local)
        assert set(opened["locals"]) == {"numbers", "name", "wild"}
        assert "std::vector of length 5" in opened["locals"]["numbers"]
        console = await tools.call("debug_console", command="frame 1")
        assert "main ()" in console["output"]
        assert (await tools.call("debug_console", command="info locals"))["output"] == main_locals
        numbers = await tools.call("debug_variables", path="numbers", frame=1)
        assert [m["value"] for m in numbers["variable"]["members"]] == ["3", "1", "4", "1", "5"]
        await tools.fail("NO_PROCESS", "debug_step", kind="into")
        await tools.call("debug_stop")

    in_memory(body)


def test_cli_core_of_threads(cli: Cli, threads_core: tuple[Path, Path]) -> None:  # noqa: F811
    program, core = threads_core
    bt, fault, _frame2, main_locals, counter = gdb_sections(program, core, (
        "bt", "p $_siginfo._sifields._sigfault.si_addr", "frame 2", "info locals", "p counter"))
    opened = cli.ok("core", str(program), str(core)).splitlines()
    assert re.match(r"core_dump-1: stopped \(crash\) in \S+ at \S+:\d+, thread \d+ \(pid \d+\)$", opened[0]), opened
    assert "  description: Segmentation fault" in opened and "  signal: SIGSEGV" in opened
    assert f"  fault address: {history_value(fault).split()[-1]}" in opened
    assert any(line.startswith("stack: #1 measure (core_dump.c:26)") for line in opened), opened
    frames = cli.ok("bt").splitlines()
    assert our_frames(frames, "core_dump.c") == gdb_frames(bt, "core_dump.c")
    assert cli.ok("frame", "2").startswith("core_dump-1: stopped (crash) in main at core_dump.c:53")
    assert cli.ok("raw", "info", "locals").strip() == main_locals
    assert cli.ok("print", "counter") == f"counter = {history_value(counter)}   (long)\n"
    for command in (["continue"], ["next"], ["finish"], ["until", "fold"], ["raw", "continue"]):
        code, _, err = cli.run(*command)
        assert code == 1 and err.startswith(f"error NO_PROCESS: {NOT_RUN}"), (command, err)
    status = cli.ok("status")
    assert re.search(r"^\* core_dump-1: stopped crash pid \d+ ", status, re.M), status
    assert cli.ok("context").startswith("core_dump-1: stopped (crash) in main at core_dump.c:53")
    assert cli.ok("stop").startswith(f"core_dump-1: ended, core file closed ({core})")


def test_cli_core_of_cpp_without_its_program(cli: Cli, cpp_core: tuple[Path, Path]) -> None:  # noqa: F811
    program, core = cpp_core
    (numbers,) = gdb_sections(program, core, ("p numbers",))
    opened = cli.ok("core", str(core)).splitlines()
    assert opened[0].startswith(f"core_cpp-1: stopped (crash) in crash at core_cpp.cpp:{_CRASH_LINE}"), opened
    assert history_value(cli.ok("raw", "p", "numbers")) == history_value(numbers)
    code, _, err = cli.run("step")
    assert code == 1 and err.startswith(f"error NO_PROCESS: {NOT_RUN}")
    cli.ok("stop")
