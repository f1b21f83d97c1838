"""Start a program so that it can be seized before its first instruction.

A server process has threads, and a forked child of a threaded Python process may deadlock
on a lock another thread held at fork time. So we never run Python code in a forked child:
we posix_spawn (vfork + exec, thread-safe) a fresh interpreter running a tiny trampoline.
The trampoline sets the working directory, stops itself with SIGSTOP, and after the
tracer has seized it, execs the program; it inherits the personality (no ASLR) from the
spawning thread. The environment goes
through a pipe so that Python's own start-up (locale coercion) cannot alter it.

Where nothing needs Python (no terminal to take, argv[0] the program's path, an ELF or
#! file), the trampoline is sh, whose exec of `env -i -- NAME=VALUE... program` gives the
program exactly the environment asked for: 1.5 ms against Python's 6 at each launch. The
tracer then sees two execs (env's, the program's).
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from aliceserver.debuggers.model import LaunchConfig, Redirection, StdioMode
from aliceserver.debuggers.ptrace.binding import load_libc
from aliceserver.errors import TargetError

ENV_FD = 3

_TRAMPOLINE = """\
import os, signal, sys
data = b""
while True:
    chunk = os.read(3, 65536)
    if not chunk:
        break
    data += chunk
os.close(3)
env = dict(item.split(b"=", 1) for item in data.split(b"\\0") if b"=" in item)
cwd, tty, program = sys.argv[1:4]
if tty == "1":
    import fcntl, termios
    os.setsid()
    try:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    except OSError:  # no terminal (tty /dev/null) or another session's: gdb runs it anyway
        pass
if cwd:
    os.chdir(cwd)
os.kill(os.getpid(), signal.SIGSTOP)
try:
    os.execve(program, [os.fsencode(a) for a in sys.argv[4:]], env)
except OSError as error:  # gdb's fork_inferior words, and its exit status 0177
    lines = [f"Cannot exec {program}", *(f" {a}" for a in sys.argv[5:]), f"Error: {error.strerror}"]
    os.write(2, "".join(f"warning: {line}\\n" for line in lines).encode())
    os._exit(127)
"""


_SHELL, _ENV = "/bin/sh", "/usr/bin/env"
_SHELL_TRAMPOLINE = 'cd -- "$1" || exit 127; shift; kill -STOP $$; exec "$@"'


@dataclass(slots=True)
class Spawned:
    pid: int
    stdin: int | None  # our end of the program's stdin pipe
    stdout: int | None
    stderr: int | None
    execs: int = 1  # execs up to the program's (the sh trampoline's env is one more)


def _shell_argv(config: LaunchConfig, program: str, env: dict[str, str]) -> list[str] | None:
    """The sh trampoline's arguments, or None where only the Python one does what is asked
    (a terminal to take, an argv[0] other than the program's path, a file whose exec may
    fail: its words are gdb's there, env's here)."""
    if config.stdio is StdioMode.TTY or config.program != program or "=" in program:
        return None
    if any(not name or "=" in name for name in env):
        return None
    if not all(os.access(path, os.X_OK) for path in (_SHELL, _ENV, program)):
        return None
    try:
        with open(program, "rb") as handle:
            magic = handle.read(4)
    except OSError:
        return None
    if magic != b"\x7fELF" and not magic.startswith(b"#!"):
        return None  # env's execvp would run it with sh where execve fails
    return [_SHELL, "-c", _SHELL_TRAMPOLINE, "sh", config.cwd or ".", _ENV, "-i", "--",
            *(f"{name}={value}" for name, value in env.items()), program, *config.args]  # fmt: skip


def resolve_program(program: str, cwd: str | None) -> str:
    """The absolute path of an executable regular file, or a TargetError saying why not."""
    if not program:
        raise TargetError("no program given")
    path = program
    if os.sep not in program:
        import shutil  # (with bz2, lzma, fnmatch: for a bare name alone)

        found = shutil.which(program)
        path = found if found else program
    if not os.path.isabs(path):
        path = os.path.join(cwd or os.getcwd(), path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise TargetError(f"{program}: No such file or directory.") from None
    except OSError as error:
        raise TargetError(f"{program}: {error.strerror}.", errno=error.errno) from None
    if stat.S_ISDIR(info.st_mode):
        raise TargetError(f"{program}: Is a directory.")
    if not stat.S_ISREG(info.st_mode):
        raise TargetError(f"{program}: Permission denied (not an executable file).")
    # A file without execute permission starts, and its exec fails, as in gdb: "During
    # startup program exited with code 127." after the trampoline's "Cannot exec".
    return os.path.abspath(path)


ADDR_NO_RANDOMIZE = 0x0040000
_QUERY_PERSONALITY = 0xFFFFFFFF


@contextlib.contextmanager
def _personality(flags: int) -> Iterator[None]:
    """The calling thread's personality with `flags` added, for a child spawned meanwhile
    (a child inherits its parent thread's; the trampoline need not load ctypes for it)."""
    if not flags:
        yield
        return
    libc = load_libc()  # loaded already: no file is read
    before = libc.personality(_QUERY_PERSONALITY)
    libc.personality(before | flags)
    try:
        yield
    finally:
        libc.personality(before)


_OPEN_FLAGS = {"r": os.O_RDONLY, "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
               "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND}  # fmt: skip


def _redirect(redirection: Redirection, cwd: str | None, theirs: list[int]) -> tuple[int, int, int]:
    """The spawn's action for one redirection; its file is opened here, so that a missing
    one is an error before any program starts (gdb's shell says `cannot open`)."""
    if not 0 <= redirection.fd <= 2:  # fd 3 carries the environment to the trampoline
        raise TargetError(f"{redirection.fd}: only the standard descriptors 0, 1 and 2 can be redirected")
    if redirection.copy_of is not None:
        if not 0 <= redirection.copy_of <= 2:
            raise TargetError(f"{redirection.copy_of}: Bad file descriptor")
        return (os.POSIX_SPAWN_DUP2, redirection.copy_of, redirection.fd)
    assert redirection.path is not None
    path = os.path.join(cwd or os.getcwd(), redirection.path)
    try:
        fd = os.open(path, _OPEN_FLAGS[redirection.mode] | os.O_CLOEXEC | os.O_NOCTTY, 0o666)
    except OSError as error:
        raise TargetError(f"cannot open {redirection.path}: {error.strerror}.", errno=error.errno) from None
    theirs.append(fd)
    return (os.POSIX_SPAWN_DUP2, fd, redirection.fd)


def spawn_stopped(config: LaunchConfig, program: str) -> Spawned:
    """posix_spawn the trampoline; it stops itself with SIGSTOP before exec'ing `program`."""
    if config.cwd is not None and not os.path.isdir(config.cwd):
        raise TargetError(f"working directory {config.cwd}: No such directory.")
    env = dict(os.environ) if config.env is None else dict(config.env)
    env_blob = b"\0".join(os.fsencode(f"{key}={value}") for key, value in env.items())
    env_read, env_write = os.pipe()
    ours: list[int] = [env_write]
    theirs: list[int] = [env_read]
    actions: list[tuple[int, int, int]] = [(os.POSIX_SPAWN_DUP2, env_read, ENV_FD)]
    spawned = Spawned(0, None, None, None)
    try:
        if config.stdio is StdioMode.PIPES:
            for target_fd in (0, 1, 2):
                read_end, write_end = os.pipe()
                child_end, our_end = (read_end, write_end) if target_fd == 0 else (write_end, read_end)
                theirs.append(child_end)
                ours.append(our_end)
                actions.append((os.POSIX_SPAWN_DUP2, child_end, target_fd))
                setattr(spawned, ("stdin", "stdout", "stderr")[target_fd], our_end)
        elif config.stdio is StdioMode.INHERIT_OUTPUT:  # fds 1 and 2 stay ours
            read_end, write_end = os.pipe()
            theirs.append(read_end)
            ours.append(write_end)
            actions.append((os.POSIX_SPAWN_DUP2, read_end, 0))
            spawned.stdin = write_end
        elif config.stdio is StdioMode.TTY:
            if not config.tty:
                raise TargetError("stdio mode 'tty' needs a terminal path")
            try:
                tty_fd = os.open(config.tty, os.O_RDWR | os.O_NOCTTY)
            except OSError as error:
                raise TargetError(f"{config.tty}: {error.strerror}.") from None  # gdb's words
            theirs.append(tty_fd)
            actions += [(os.POSIX_SPAWN_DUP2, tty_fd, fd) for fd in (0, 1, 2)]
        for redirection in config.redirections:
            actions.append(_redirect(redirection, config.cwd, theirs))
        argv = [
            sys.executable, "-I", "-S", "-c", _TRAMPOLINE,
            config.cwd or "", "1" if config.stdio is StdioMode.TTY else "0", program,
            config.program,  # the program's argv[0]: the path the user gave
            *config.args,
        ]  # fmt: skip
        shell = _shell_argv(config, program, env)
        if shell is not None:
            argv, spawned.execs = shell, 2
            actions.pop(0)  # the environment is in its arguments
        with _personality(ADDR_NO_RANDOMIZE if config.disable_aslr else 0):
            if config.shares_terminal:  # a process group of its own (foreground.py)
                spawned.pid = os.posix_spawn(argv[0], argv, {}, file_actions=actions, setpgroup=0)
            else:
                spawned.pid = os.posix_spawn(argv[0], argv, {}, file_actions=actions)
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in theirs:
            os.close(fd)
    try:
        if spawned.execs == 1:  # the Python trampoline reads it
            os.write(env_write, env_blob)  # small enough for the pipe, or the child reads it
    except BrokenPipeError:
        pass  # the trampoline died; the tracer sees its exit
    finally:
        os.close(env_write)
    return spawned
