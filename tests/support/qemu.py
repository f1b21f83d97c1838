"""aarch64 programs under qemu-user's gdb stub (`qemu-aarch64 -g PORT`), for the tests of
the second architecture: a cross compiler builds them at test time, qemu runs them and
waits for a debugger at their first instruction, and gdb-multiarch over the same kind of
stub is the oracle. Each tool missing skips the test that needs it, with its name."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.batch import ex, ours
from tests.support.build import Builder
from tests.support.procs import listening_addresses

CROSS_GCC = "aarch64-linux-gnu-gcc"
SYSROOT = Path("/usr/aarch64-linux-gnu")  # Debian's libc6-arm64-cross, as gdb's sysroot
_LISTEN_TIMEOUT = 10.0
_GDB_TIMEOUT = 120.0


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} not installed (scripts/setup.sh installs it)")
    return found


def cross_builder(builder: Builder) -> Builder:
    """A Builder with the aarch64 cross compiler, caching beside the native programs."""
    return Builder(cache_dir=builder.cache_dir, compiler=tool(CROSS_GCC))


def build(builder: Builder, name: str, optimization: str) -> Path:
    """`name`.c for aarch64 at `optimization` (-O0, -O2), static: every frame's code,
    libc's too, is in the one file both debuggers read."""
    return cross_builder(builder).build(name, ("-g", optimization, "-static"))


@dataclass
class QemuStub:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(port: int) -> bool:
    """Whether something listens on `port`, read from /proc: a probing connection would be
    the one connection qemu's stub takes."""
    return bool(listening_addresses(port))


def _guest_environment() -> dict[str, str]:
    """This process's environment without pytest's PYTEST_CURRENT_TEST, which names the
    phase ("(setup)" in a fixture, "(call)" in the test): qemu copies the environment onto
    the guest's stack, so a stub started by a fixture and gdb's started by the test would
    place the stack a byte apart, 16 after alignment, in some environments."""
    return {name: value for name, value in os.environ.items() if name != "PYTEST_CURRENT_TEST"}


@contextmanager
def qemu_stub(program: Path, args: Sequence[str] = (), *, emulator: str = "qemu-aarch64",
              sysroot: Path | None = SYSROOT) -> Iterator[QemuStub]:  # fmt: skip
    """`qemu-aarch64 -L SYSROOT -g PORT PROGRAM` (or `emulator`, and no -L without a
    `sysroot`), listening once this yields; qemu is killed on the way out whatever happened."""
    qemu = tool(emulator)
    root = ["-L", str(sysroot)] if sysroot is not None else []
    for _attempt in range(3):  # another process may take the free port first
        port = _free_port()
        process = subprocess.Popen(
            [qemu, *root, "-g", str(port), str(program), *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True, env=_guest_environment(),
        )  # fmt: skip
        try:
            deadline = time.monotonic() + _LISTEN_TIMEOUT
            while not _listening(port) and process.poll() is None:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{emulator} did not listen on port {port}")
                time.sleep(0.02)
            if process.poll() is None:
                yield QemuStub(process, port)
                return
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()
            assert process.stderr is not None
            process.stderr.close()
    raise RuntimeError(f"{emulator} could not listen on a free port")


def gdb_multiarch(program: Path, commands: Sequence[str], args: Sequence[str] = ()) -> str:
    """gdb-multiarch's batch output for `commands`, run after `target remote` to a qemu
    stub of its own running `program`."""
    gdb = tool("gdb-multiarch")
    with qemu_stub(program, args) as stub:
        argv = [gdb, "-nx", "-batch", "-ex", "set sysroot " + str(SYSROOT),
                "-ex", "set width 0", "-ex", "set height 0", "-ex", "set confirm off",
                "-ex", f"target remote {stub.address}"]  # fmt: skip
        for command in commands:
            argv += ["-ex", command]
        argv.append(str(program))
        result = subprocess.run(argv, capture_output=True, text=True, timeout=_GDB_TIMEOUT)
    return result.stdout


def normalized(text: str) -> str:
    """`text` with what differs from run to run masked: qemu's thread id (its host tid) and
    the stub's port."""
    text = re.sub(r"Thread 1\.\d+", "Thread 1.T", text)
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)


def both_batches(program: Path, commands: Sequence[str], cwd: Path,
                 our_options: Sequence[str] = ()) -> tuple[str, str]:  # fmt: skip
    """(gdb-multiarch's, ours) normalised stdout and stderr of `-batch` COMMANDS after
    `set sysroot` and `target remote` to a fresh qemu stub each running `program`;
    `our_options` go to ours alone (a log file)."""
    gdb = tool("gdb-multiarch")
    said = []
    for side in ("gdb", "ours"):
        with qemu_stub(program) as stub:
            args = ["-batch", "-nx", *ex(f"set sysroot {SYSROOT}", f"target remote {stub.address}", *commands),
                    str(program)]  # fmt: skip
            if side == "gdb":
                done = subprocess.run([gdb, *args], cwd=cwd, capture_output=True, text=True, timeout=_GDB_TIMEOUT,
                                      stdin=subprocess.DEVNULL)  # fmt: skip
            else:
                done = ours([*our_options, *args], cwd)
        said.append(normalized(done.stdout + "\n--stderr--\n" + done.stderr))
    return said[0], said[1]


def sections(output: str, marker: str = "@@") -> list[str]:
    """The output between `echo @@\\n` markers, in order (the first, before any, dropped)."""
    return [part.strip("\n") for part in output.split(marker + "\n")[1:]]


_FRAME_LINE = re.compile(r"^#(\d+)\s+(?:(0x[0-9a-f]+) in )?(\S+) ")


def backtrace_frames(text: str) -> list[tuple[int | None, str]]:
    """(pc or None for frame 0's, function) of each frame of gdb's `bt`."""
    found = []
    for line in text.splitlines():
        match = _FRAME_LINE.match(line)
        if match:
            pc = int(match.group(2), 16) if match.group(2) else None
            found.append((pc, match.group(3)))
    return found
