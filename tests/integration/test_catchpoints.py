"""gdb's catchpoints (`catch syscall|fork|vfork|exec|signal|throw|catch|rethrow|load|unload`,
MI -catch-*), run side by side with gdb 13 on the same programs: what setting them prints,
their `info breakpoints` rows, their stops on the console and in MI *stopped records, and
conditions, ignore counts, disabling and deleting as on breakpoints.

The location after a stop's `Catchpoint N (...), ` is compared where it comes from no
debug info (a pc and a library); the frames of glibc's own functions are another matter.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE, ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def events_prog(builder: Builder) -> Path:
    return builder.build("catch_events")


@pytest.fixture(scope="module")
def throw_prog(builder: Builder) -> Path:
    if find_cxx() is None:
        pytest.skip("g++ not installed")
    return MoreBuilder(builder.cache_dir).build_cpp("catch_throw")


def _catch_lines(text: str) -> list[str]:
    """What a session says about its catchpoints: mentions, stop lines (with the location
    when it is a bare pc in a library), table rows and their counts, and exec/fork lines."""
    kept = []
    for line in normalized(text).splitlines():
        if line.startswith(("Catchpoint ", "Temporary catchpoint ")):
            head, sep, rest = line.partition("), ")
            kept.append(line if " from /" in rest else head + sep)
        elif re.match(r"(Num |\d+ +catchpoint|\t(catchpoint already|stop only|Will ignore|matching))", line):
            kept.append(line)
        elif line.startswith(("process N is executing", "[Detaching after", "[Inferior 1")):
            kept.append(line)
    return kept


def _errors(text: str) -> list[str]:
    """The errors, without a glibc source file's absence (its path is a frame's matter)."""
    return [line for line in normalized(text).splitlines() if "No such file or directory" not in line]


def _both(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    args = ["-batch", "-nx", *args]
    return theirs(args, cwd), ours(args, cwd)


def _assert_same_catches(args: list[str], cwd: Path) -> list[str]:
    expected, got = _both(args, cwd)
    assert _catch_lines(got.stdout) == _catch_lines(expected.stdout), (got.stdout, expected.stdout)
    assert _errors(got.stderr) == _errors(expected.stderr)
    return _catch_lines(got.stdout)


def test_syscall_signal_and_fork_stops_as_gdb(events_prog: Path) -> None:
    lines = _assert_same_catches(
        ex("catch syscall write", "catch fork", "catch signal SIGUSR1", "info breakpoints", "run", "c", "c",
           "c", "info breakpoints", "c", "c", "c") + [str(events_prog)],
        events_prog.parent,
    )  # fmt: skip
    assert "Catchpoint 1 (call to syscall write), " in lines
    assert "Catchpoint 1 (returned from syscall write), " in lines
    assert "Catchpoint 3 (signal SIGUSR1), " in lines
    assert "Catchpoint 2 (forked process N), " in lines
    assert "2       catchpoint     keep y              fork, process N " in lines


def test_catch_arguments_mentions_rows_and_errors_as_gdb(events_prog: Path) -> None:
    lines = _assert_same_catches(
        ex("catch syscall", "catch syscall 1 getpid", "catch syscall write read", "catch syscall 9999",
           "catch signal", "catch signal all", "catch signal 10 SIGUSR2", "catch vfork", "catch exec",
           "catch load", "catch unload foo", "catch load libm", "catch throw", "catch rethrow",
           "catch throw runtime", "catch exception", "catch handlers", "catch syscall nosuch",
           "catch signal SIGFOO", "catch signal 300", "catch fork now", "tcatch fork", "catch sys write",
           "catch s", "catch thr", "catch foo", "catch exec x", "catch syscall group:foo",
           "catch signal all SIGINT", "catch syscall g:process",
           "info breakpoints") + [str(events_prog)],
        events_prog.parent,
    )  # fmt: skip
    assert "Catchpoint 2 (syscalls 'write' [1] 'getpid' [39])" in lines
    assert '7       catchpoint     keep y              signals "SIGBUS SIGUSR2" ' in lines


def test_condition_ignore_disable_delete_as_gdb(events_prog: Path) -> None:
    lines = _assert_same_catches(
        ex("catch syscall write", "catch signal", "condition 2 handled == 99", "ignore 1 1", "run",
           "info breakpoints", "disable 1", "condition 2", "c", "delete 2", "c") + [str(events_prog)],
        events_prog.parent,
    )  # fmt: skip
    assert lines.count("Catchpoint 1 (returned from syscall write), ") == 1  # the entry was ignored
    assert "Catchpoint 2 (signal SIGUSR1), " in lines


def test_exec_stop_as_gdb(builder: Builder) -> None:
    target = builder.build("exec_target")
    prog = builder.build("exec")
    lines = _assert_same_catches(
        ex("catch exec", "run", "info breakpoints", "c") + ["--args", str(prog), str(target), "hello"],
        prog.parent,
    )
    assert any(line.startswith("Catchpoint 1 (exec'd ") and "in _start () from " in line for line in lines)


def test_exception_stops_at_libstdcxx_probes_as_gdb(throw_prog: Path) -> None:
    lines = _assert_same_catches(
        ex("catch throw", "catch catch", "catch rethrow", "run", "c", "c", "c", "info breakpoints", "c")
        + [str(throw_prog)],
        throw_prog.parent,
    )
    assert lines[3].startswith("Catchpoint 1 (exception thrown), 0x") and "in __cxa_throw () from " in lines[3]
    assert "\tcatchpoint already hit 2 times" in lines


def test_exception_regexp_matches_the_thrown_type_as_gdb(throw_prog: Path) -> None:
    lines = _assert_same_catches(
        ex("catch throw runtime", "catch throw logic", "catch catch nomatch", "catch rethrow std::runtime_error",
           "run", "c", "info breakpoints", "c") + [str(throw_prog)],
        throw_prog.parent,
    )  # fmt: skip
    assert "\tmatching: logic" in lines and "Catchpoint 4 (exception rethrown), " in " ".join(lines)
    assert not any(line.startswith("Catchpoint 2 (exception") for line in lines)


def test_info_probes_lists_the_libstdcxx_probes_as_gdb(throw_prog: Path) -> None:
    """`info probes` (the testsuite asks it whether exception catchpoints can filter by type):
    none before libstdc++ is loaded, then its table, filtered by provider/name regexps."""
    expected, got = _both(
        ex("info probes", "break main", "run", "info probes", "info probes stap libstdcxx thr",
           "info probes dtrace", "info probe all std", "info probes nosuch") + [str(throw_prog)],
        throw_prog.parent,
    )  # fmt: skip

    def table(text: str) -> list[str]:
        return [line for line in text.splitlines() if line.startswith(("Type ", "stap ", "No probes"))]

    assert table(got.stdout) == table(expected.stdout)
    assert table(got.stdout).count("No probes matched.") == 2
    assert got.stderr.strip().endswith('Undefined info probes command: "nosuch".  Try "help info probes".')
    assert sum(line.startswith("stap libstdcxx throw ") for line in table(got.stdout)) == 3


# --- MI ----------------------------------------------------------------------------------------
def _mi(program: Path, commands: list[str], *, gdb: bool, args: tuple[str, ...] | list[str] = ()) -> list[str]:
    """The records of one MI session about catchpoints, normalized (pids, cores, frames)."""
    script = "\n".join([*commands, "-gdb-exit"]) + "\n"
    if gdb:
        argv = [str(gdb_path()), "-nx", "-i=mi", "--args", str(program), *args]
        env = None
    else:
        argv = [sys.executable, "-m", "aliceserver", "-nx", "-i=mi", "--args", str(program), *args]
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(argv, input=script, capture_output=True, text=True, timeout=PATIENCE,
                          cwd=program.parent, env=env)  # fmt: skip
    kept = []
    for line in done.stdout.splitlines():
        line = re.sub(r',frame=\{.*?\},thread-id=', ",frame={...},thread-id=", line)
        line = re.sub(r'(newpid|what)="\d+"', r'\1="N"', line)
        line = re.sub(r'\(forked process \d+\)', "(forked process N)", line)
        line = re.sub(r',core="\d+"', "", line)
        if re.fullmatch(r'~"Catchpoint \d+ \((load|unload)\)"', line):
            continue  # gdb's -catch-load/unload mention, left unflushed until the next command
        if line.startswith('~"Catchpoint') or line.startswith('~"Temporary catchpoint'):
            kept.append(line.partition("), ")[0])
        elif line.startswith(("*stopped", "^error")) or "catchpoint" in line or line == '~"\\n"':
            kept.append(line)
    return kept


def test_mi_catch_records_as_gdb(events_prog: Path) -> None:
    commands = ["catch syscall write", "catch fork", "catch signal SIGUSR1", "-break-list", "-exec-run",
                "-exec-continue", "-exec-continue", "-exec-continue", "-break-list", "-catch-load",
                "-catch-load -t libm", "-catch-unload -d foo", "-catch-exception", "-catch-handlers",
                "-catch-assert", "-catch-throw -r runtime"]  # fmt: skip
    got = _mi(events_prog, commands, gdb=False)
    assert got == _mi(events_prog, commands, gdb=True)
    assert any(line.startswith('*stopped,reason="syscall-entry",disp="keep",bkptno="1",syscall-number="1"')
               for line in got)  # fmt: skip


def test_mi_exception_records_as_gdb(throw_prog: Path) -> None:
    # Set once libstdc++ is loaded: before, gdb knows __cxa_throw@plt and we do not (the
    # catchpoint then has no address and no thread-groups here).
    commands = ["break main", "-exec-run", "-catch-throw", "-catch-catch -t", "-exec-continue",
                "-exec-continue", "catch rethrow", "continue", "-break-list"]
    got = _mi(throw_prog, commands, gdb=False)
    assert got == _mi(throw_prog, commands, gdb=True)
    assert any(line.startswith('*stopped,bkptno="2",reason="breakpoint-hit",disp="keep"') for line in got)


def test_load_and_unload_stops_as_gdb(builder: Builder) -> None:
    library = builder.build("lib_plugin", extra=["-shared", "-fPIC"])
    prog = builder.build("dlopen_main", extra=["-ldl"])
    args = ["--args", str(prog), str(library)]
    expected, got = _both(ex("catch load lib_plugin", "catch unload", "catch load nomatch", "run",
                             "info breakpoints", "c", "c") + args, prog.parent)  # fmt: skip
    assert _catch_lines(got.stdout) == _catch_lines(expected.stdout)
    for text in (got.stdout, expected.stdout):
        assert f"\nCatchpoint 1\n  Inferior loaded {library}\n" in text
        assert f"\nCatchpoint 2\n  Inferior unloaded {library}\n" in text
    commands = ["-catch-load lib_plugin", "-catch-unload -t lib_plugin", "-exec-run", "-exec-continue",
                "-exec-continue"]  # fmt: skip
    mi = _mi(prog, commands, gdb=False, args=[str(library)])
    assert mi == _mi(prog, commands, gdb=True, args=[str(library)])
    assert any(line.startswith(f'*stopped,bkptno="2",disp="del",reason="solib-event",removed=[library="{library}"]')
               for line in mi)  # fmt: skip


def test_syscall_catchpoint_in_threads_leaves_none_stuck(builder: Builder) -> None:
    """Threads interrupted inside a system call (all-stop) stop at its exit instead: each
    thread's `exit` is caught, and the program then runs to its end."""
    prog = builder.build("threads")
    args = ["-batch", "-nx", *ex("catch syscall exit", "run", "c", "c", "delete 1", "c"), str(prog)]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "aliceserver", *args], capture_output=True, text=True,
                          timeout=60, cwd=prog.parent, env=env, stdin=subprocess.DEVNULL)  # fmt: skip
    lines = done.stdout.splitlines()
    # As gdb in a program that has had a second thread: the stop names the thread.
    caught = [line for line in lines if re.match(r'Thread \d+ "worker-\d" hit Catchpoint 1 \(call to syscall exit\), ', line)]
    assert len(caught) == 3, done.stdout
    assert all(line.startswith("[Switching to Thread 0x") for line in (lines[lines.index(c) - 2] for c in caught))
    assert lines[-1].startswith("[Inferior 1 (process ") and lines[-1].endswith(" exited normally]")


def test_deleted_syscall_catchpoint_drops_the_stops_queued_for_it(builder: Builder) -> None:
    """Threads stopped at a caught call while another's stop is reported keep their stops
    queued; once the catchpoint is deleted, `continue` runs to the end, as in gdb (before:
    a queued stop was still shown as `hit Catchpoint 1` after its `delete`)."""
    prog = builder.build("syscall_spin")
    # The first stops come as the threads leave the barrier; later ones while all spin.
    args = ["-batch", "-nx", *ex("catch syscall getppid", "run", "c", "c", "c", "delete 1", "c"), str(prog)]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "aliceserver", *args], capture_output=True, text=True,
                          timeout=60, cwd=prog.parent, env=env, stdin=subprocess.DEVNULL)  # fmt: skip
    lines = done.stdout.splitlines()
    assert sum(re.search(r" hit Catchpoint 1 \((call to|returned from) syscall getppid\), ", line) is not None
               for line in lines) == 4, done.stdout  # fmt: skip
    assert "spun" in lines and lines[-1].endswith(" exited normally]"), done.stdout
