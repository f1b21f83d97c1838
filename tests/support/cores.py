"""Cores for tests: from the kernel (a crash with RLIMIT_CORE raised), from gdb's gcore,
and from our writer over a paused process attached with ptrace; and gdb's view of a core."""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from aliceserver.debuggers.core.writer import ThreadImage
from aliceserver.debuggers.ptrace import binding

PTRACE_ATTACH, PTRACE_DETACH = 0x10, 0x11
_XSTATE_MAX = 64 * 1024


def require_gdb() -> str:
    gdb = shutil.which("gdb")
    if gdb is None:
        pytest.skip("gdb is not installed: the core tests compare with gdb reading the same core")
    return gdb


def gdb_batch(
    program: Path, core: Path | None, commands: Sequence[str], timeout: float = 60
) -> str:
    """gdb's output (stdout and stderr) for `commands` on `program` and `core`."""
    argv = [require_gdb(), "-nx", "-batch", "-ex", "set pagination off", "-ex", "set width 0"]
    for command in commands:
        argv += ["-ex", command]
    argv += [str(program)] + ([str(core)] if core else [])
    result = subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    return result.stdout + result.stderr


def _unlimited_core() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def kernel_core(program: Path, args: Sequence[str], cwd: Path) -> Path:
    """The core the kernel writes when `program` crashes in `cwd`; skips when none appears
    (a core_pattern that pipes to a handler, or cores disabled)."""
    pattern = Path("/proc/sys/kernel/core_pattern").read_text().strip()
    if pattern.startswith("|"):
        pytest.skip(
            f"core_pattern pipes cores to a handler ({pattern.split()[0]}): no core file to read"
        )
    result = subprocess.run([str(program), *args], cwd=cwd, preexec_fn=_unlimited_core, capture_output=True,
                            timeout=60)  # fmt: skip
    assert result.returncode < 0, f"{program.name} {args} did not crash: {result.returncode}"
    cores = [p for p in cwd.iterdir() if p.name == "core" or p.name.startswith("core.")]
    if not cores:
        pytest.skip(f"the kernel wrote no core (core_pattern {pattern!r})")
    return cores[0]


def gdb_gcore(program: Path, args: Sequence[str], location: str, core: Path) -> str:
    """Run `program` under gdb to `location` and save gdb's core there; gdb's output."""
    output = gdb_batch(
        program, None, [f"break {location}", "run " + " ".join(args), f"gcore {core}"]
    )
    assert core.is_file(), output
    return output


@contextmanager
def paused_program(program: Path, args: Sequence[str], cwd: Path | None = None) -> Iterator[int]:
    """Start `program` (in `cwd`), wait for its "ready PID" line, yield its pid; kill it after."""
    process = subprocess.Popen(
        [str(program), *args], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=cwd
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
        assert line.startswith("ready"), line
        yield process.pid
    finally:
        process.kill()
        process.wait()


def tids(pid: int) -> list[int]:
    """The threads of `pid`, main thread first."""
    return sorted((int(t) for t in os.listdir(f"/proc/{pid}/task")), key=lambda t: (t != pid, t))


@contextmanager
def attached(pid: int) -> Iterator[list[ThreadImage]]:
    """Every thread of `pid` stopped under our ptrace, read as ThreadImages; detached after."""
    libc = binding.Libc()
    stopped: list[int] = []
    try:
        for tid in tids(pid):
            libc.ptrace(PTRACE_ATTACH, tid)
            stopped.append(tid)
            _, status = libc.waitpid(tid, binding.WALL)
            assert os.WIFSTOPPED(status) and os.WSTOPSIG(status) == signal.SIGSTOP, status
        yield [_thread_image(libc, tid) for tid in stopped]
    finally:
        for tid in stopped:
            libc.ptrace(PTRACE_DETACH, tid)


def _thread_image(libc: binding.Libc, tid: int) -> ThreadImage:
    regs = binding.UserRegs()
    libc.get_regs(tid, regs)
    return ThreadImage(
        tid,
        bytes(regs),
        libc.get_regset(tid, binding.NT_PRFPREG, 512),
        libc.get_regset(tid, binding.NT_X86_XSTATE, _XSTATE_MAX),
        libc.siginfo_bytes(tid),
        0,  # the SIGSTOP of attaching is ours, not the program's: gdb reports no signal either
    )


GENERAL_REGISTERS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12",
                     "r13", "r14", "r15", "rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs", "fs_base",
                     "gs_base")  # fmt: skip
_REGISTER_LINE = re.compile(r"^(\w+)\s+(0x[0-9a-f]+)", re.M)


def gdb_registers(text: str) -> dict[str, int]:
    """`info registers` lines as name -> value."""
    return {name: int(value, 16) for name, value in _REGISTER_LINE.findall(text)}


@dataclass
class GdbCoreView:
    """What gdb 13 reads from a core: thread ids (current first), every thread's general
    registers, the current thread's $_siginfo, and memory words."""

    lwps: list[int]
    registers: dict[int, dict[str, int]]
    siginfo: tuple[int, int, int] | None  # si_signo, si_code, si_addr
    words: dict[str, list[int]]  # label -> the words gdb's x/Nxg printed
    output: str


def gdb_core_view(program: Path, core: Path, examine: dict[str, str]) -> GdbCoreView:
    """One gdb run on `core`: `examine` maps a label to an x/Nxg ADDRESS expression."""
    commands = ["echo @@threads\\n", "info threads", "echo @@registers\\n", "thread apply all info registers general fs_base gs_base",
                "echo @@siginfo\\n", "p/x $_siginfo.si_signo", "p/x $_siginfo.si_code",
                "p/x $_siginfo._sifields._sigfault.si_addr"]  # fmt: skip
    for label, expression in examine.items():
        commands += [f"echo @@x {label}\\n", f"x/{expression}"]
    output = gdb_batch(program, core, commands)
    sections = dict(_sections(output))
    lwps = [
        int(m)
        for m in re.findall(
            r"^[* ] +\d+ +(?:Thread 0x[0-9a-f]+ \()?LWP (\d+)", sections["threads"], re.M
        )
    ]
    current = re.search(r"^\* +\d+ +(?:Thread 0x[0-9a-f]+ \()?LWP (\d+)", sections["threads"], re.M)
    if current is not None:
        lwps.remove(int(current.group(1)))
        lwps.insert(0, int(current.group(1)))
    registers: dict[int, dict[str, int]] = {}
    for block in re.split(r"\n(?=Thread \d+ )", sections["registers"]):
        match = re.match(r"Thread \d+ \(.*?LWP (\d+)", block)
        if match:
            registers[int(match.group(1))] = gdb_registers(block)
    values = [int(v, 16) for v in re.findall(r"^\$\d+ = (0x[0-9a-f]+)", sections["siginfo"], re.M)]
    siginfo = (values[0], values[1], values[2]) if len(values) == 3 else None
    words = {label[2:]: [int(w, 16) for w in re.findall(r"\t(0x[0-9a-f]{16})", text)]
             for label, text in sections.items() if label.startswith("x ")}  # fmt: skip
    return GdbCoreView(lwps, registers, siginfo, words, output)


def _sections(output: str) -> Iterator[tuple[str, str]]:
    for part in output.split("@@")[1:]:
        label, _, text = part.partition("\n")
        yield label.strip(), text
