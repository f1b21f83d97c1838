"""Console commands against gdb 13 on small programs built here: number settings parsed
as gdb's expressions (cli-setshow.c), `set args` kept as typed, `show convenience`, a
breakpoint set in another inferior's program, and catchpoint stops' frames."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE, assert_like_gdb, ex, needs_gdb, normalized, ours, theirs
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_SOURCE = """\
struct pt { int x, y; };
int glob = 5;
int add(int a, int b) { return a + b; }
int main(int argc, char **argv) {
  struct pt p = {1, 2};
  int arr[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  int s = 0;
  for (int i = 0; i < 10; i++) s += arr[i];
  s = add(s, p.x);
  return s == 46 ? 0 : 1;
}
"""


@pytest.fixture(scope="module")
def prog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("conformance")
    (where / "prog.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-o", "prog", "prog.c"], cwd=where, check=True)
    return where / "prog"


def _set_show(*pairs: tuple[str, str]) -> list[str]:
    return ex(*(command for set_text, name in pairs for command in (f"set {name} {set_text}", f"show {name}")))


def test_number_settings_are_expressions_like_gdb(prog: Path) -> None:
    """uinteger, integer, zinteger and zuinteger-unlimited settings: an expression, a
    prefix of `unlimited` (not for a zinteger), 0 as unlimited, gdb's range errors."""
    elements = "print elements"
    commands = _set_show(("xx", elements), ("2+1", elements), ("", elements), ("u", elements),
                         ("unl x", elements), ("-1", elements), ("4294967295", elements), ("0x10", elements),
                         ("010", elements), ("2.7", elements), ("glob", elements), ("$foo", elements),
                         ("'a'", elements), ("1==1", elements), ("5-5", "print repeats"),
                         ("-5", "listsize"), ("0", "listsize"), ("", "listsize"), ("2147483647", "listsize"),
                         ("0", "history size"), ("u", "history size"), ("2147483648", "history size"),
                         ("-2", "history size"), ("", "complaints"), ("-5", "complaints"),
                         ("unlimited", "complaints"), ("0", "height"), ("3*2", "max-completions"),
                         ("1+1", "remotetimeout"), ("40000", "width"), ("30000", "width"),
                         ("2-2", "backtrace limit"), ("1-1", "annotate"), ("65535+1", "max-value-size"))
    assert_like_gdb([*commands, str(prog)], prog.parent)


def test_number_setting_from_the_frame_like_gdb(prog: Path) -> None:
    commands = ex("break 9", "run", "set print elements p", "set print elements s", "show print elements",
                  "set print elements p.y+i", "show print elements", "set print elements -1.5",
                  "set print elements 1.0/0", "set print elements (char)300", "show print elements")
    assert_like_gdb([*commands, str(prog)], prog.parent)


def test_set_args_keeps_trailing_blanks_like_gdb(prog: Path) -> None:
    commands = ex("set args a b ", "show args", "set args   x  ", "show args", "set args", "show args")
    assert_like_gdb([*commands, str(prog)], prog.parent)


def _mi(command: list[str], prog: Path, lines: str) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([*command, "-nx", "-q", "-i=mi", str(prog)], input=lines, capture_output=True,
                         text=True, cwd=prog.parent, env=env, timeout=PATIENCE)
    return [line for line in run.stdout.splitlines() if line.startswith("^")]


def test_mi_set_args_keeps_trailing_blanks_like_gdb(prog: Path) -> None:
    lines = "-gdb-set args a b \n-gdb-show args\n-exec-arguments c d \n-gdb-show args\n-gdb-exit\n"
    gdb = gdb_path()
    assert gdb is not None
    assert _mi([sys.executable, "-m", "aliceserver"], prog, lines) == _mi([gdb], prog, lines)


_BUILTINS = ("$_strlen", "$_gdb_setting", "$_creal", "$_gdb_major", "$_gdb_minor", "$_inferior_thread_count",
             "$_sdata", "$_exception", "$_probe_arg0", "$_probe_argc", "$_exitcode", "$_exitsignal")


def test_show_convenience_like_gdb(prog: Path) -> None:
    """gdb 13's internal functions and variables, listed and read at startup, at a stop,
    after the exit; storing into them refused in gdb's words."""
    reads = [f"p {name}" for name in _BUILTINS]
    stores = [f"set {name} = 2" for name in ("$_thread", "$_sdata", "$_strlen", "$_probe_arg1", "$_siginfo",
                                              "$_inferior", "$_exception", "$_inferior_thread_count")]
    commands = ex("show convenience", *reads, "whatis $_strlen", "output $_strlen", "p $_isvoid($_strlen)",
                  "break add", "run", "show convenience", *reads, "p $x = 4", "set $_gdb_major = 3", *stores,
                  "continue", "show convenience", *reads, "run", "kill", "show convenience")
    assert_like_gdb([*commands, str(prog)], prog.parent)


_SIGNALLED = """\
#include <signal.h>
#include <complex.h>
double _Complex z = 1.5 + 2.5 * I;
float _Complex zf = 3.0f - 1.0f * I;
int main(void) { raise(SIGABRT); return 0; }
"""


def test_exit_signal_and_complex_parts_like_gdb(tmp_path: Path) -> None:
    (tmp_path / "sig.c").write_text(_SIGNALLED)
    subprocess.run(["gcc", "-g", "-o", "sig", "sig.c"], cwd=tmp_path, check=True)
    commands = ex("p $_creal(z)", "p $_cimag(z)", "p $_creal(zf)", "p $_cimag(zf)", "whatis $_creal(zf)",
                  "p $_creal(1)", "p $_creal()", "p $_cimag(z, z)", "run", "p $_exitsignal", "p $_exitcode")
    assert_like_gdb([*commands, str(tmp_path / "sig")], tmp_path)


def test_break_in_another_inferiors_program_like_gdb(prog: Path) -> None:
    """gdb resolves a breakpoint in every inferior's program: set from an inferior without
    one, it is in inferior 1's (`inf 1` in the listing), and inferior 2 has no symbols."""
    commands = ex("break add", "add-inferior", "info breakpoints", "inferior 2", "tbreak main", "info breakpoints",
                  "watch glob", "p glob", "p 1+2", "info breakpoints", "inferior 1", "p glob", "run",
                  "info breakpoints", "continue", "info breakpoints")
    assert_like_gdb([*commands, str(prog)], prog.parent)


_FORKS = """\
#include <unistd.h>
#include <sys/wait.h>
int main(void) { pid_t p = fork(); if (p == 0) _exit(0); waitpid(p, 0, 0); return 0; }
"""

_LOOP = """\
int arr[8];
int sum(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += arr[i] * (i & 1 ? 3 : 5);
  return s;
}
int main(void) {
  for (int i = 0; i < 8; i++) arr[i] = i;
  int t = sum(8);
  return t == 0;
}
"""


def _built(where: Path, name: str, source: str, *flags: str) -> Path:
    (where / f"{name}.c").write_text(source)
    subprocess.run(["gcc", "-g", *flags, "-o", name, f"{name}.c"], cwd=where, check=True)
    return where / name


def test_pc_shown_where_gdb_shows_it_in_libc(tmp_path: Path) -> None:
    """gdb's frame_show_address: no pc where it starts its line-table row (libc's inlined
    arch_fork at a `catch fork` stop), and the row's line the statement one among the rows
    at its address, the pc at its start or inside (exit.c's __run_exit_handlers)."""
    forks = _built(tmp_path, "forks", _FORKS)
    assert_like_gdb([*ex("catch fork", "run", "bt 1", "stepi", "stepi", "stepi", "kill"), str(forks)], tmp_path)
    loop = _built(tmp_path, "loop", _LOOP, "-O0")
    commands = ex("break main", "run", "break exit", "continue", *["stepi"] * 6, "info line *$pc", "bt 1")
    assert_like_gdb([*commands, str(loop)], tmp_path)


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_stepi_through_rows_with_discriminators_like_gdb(tmp_path: Path, level: str) -> None:
    loop = _built(tmp_path, "loop", _LOOP, level)
    commands = ex("break sum" if level == "-O0" else "break main", "run", *["stepi"] * 60)
    assert_like_gdb([*commands, str(loop)], tmp_path)


def _modulo_stack(text: str) -> str:
    """Stack addresses differ by the environment (gdb adds LINES and COLUMNS)."""
    return re.sub(r"0x7ff[0-9a-f]{9}\b", "0x7ff...", normalized(text))


def test_info_frame_of_a_frame_spec_and_info_stack_like_gdb(prog: Path) -> None:
    """`info frame 1` describes frame 1 ('Stack frame at', no level) where frame 0 was
    described; `info stack` (`info s`) is backtrace; `info tasks` and
    `info static-tracepoint-markers` answer as gdb's (so `info st` is ambiguous)."""
    commands = ex("info tasks", "info static-tracepoint-markers", "break add", "run", "info frame 1",
                  "info frame level 1", "info frame function main", "info frame 5", "info frame", "up",
                  "info frame 0", "info stack", "info s 1", "info stack full 1", "info tasks", "info st")
    args = ["-batch", "-nx", *commands, str(prog)]
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    assert _modulo_stack(got.stdout) == _modulo_stack(expected.stdout)
    assert _modulo_stack(got.stderr) == _modulo_stack(expected.stderr)


def test_breakpoint_listing_sets_next_address_like_gdb(prog: Path) -> None:
    """info breakpoints and info line leave `x` and `$_` at the last location (gdb's
    set_next_address); the Type column widens for 'read watchpoint'; -batch's width is
    unlimited."""
    commands = ex("break add", "info breakpoints", "p $_", "x/i", "run", "info line main", "p $_", "x/i",
                  "info breakpoints", "p $_", "x/2i", "watch glob", "rwatch glob", "info breakpoints",
                  "catch fork", "info breakpoints", "show width")
    assert_like_gdb([*commands, str(prog)], prog.parent)


_CXX = """\
#include <string>
#include <vector>
struct Shape { virtual ~Shape() {} virtual double area() const { return 1; } int id = 7; };
int process(const std::vector<int> &v, const std::string &s, Shape &sh, int k) {
  return (int)v.size() + (int)s.size() + sh.id + k;
}
int main() {
  std::vector<int> v{1, 2, 3};
  std::string s = "alice";
  Shape sh;
  return process(v, s, sh, 4) == 0;
}
"""


def test_info_frame_arguments_as_frames_show_them_like_gdb(tmp_path: Path) -> None:
    """info frame's args as print_frame_args writes them under each `print frame-arguments`
    (scalars: a class by reference '...', a printed container's elements '{...}')."""
    (tmp_path / "x.cpp").write_text(_CXX)
    subprocess.run(["g++", "-g", "-O0", "-o", "x", "x.cpp"], cwd=tmp_path, check=True)
    commands = ex("break process", "run", "info frame", *(command for mode in ("all", "presence", "none") for
                                                        command in (f"set print frame-arguments {mode}", "info frame")))
    args = ["-batch", "-nx", *commands, str(tmp_path / "x")]
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)
    assert _modulo_stack(got.stdout) == _modulo_stack(expected.stdout)
    assert _modulo_stack(got.stderr) == _modulo_stack(expected.stderr)


def test_ptype_writes_a_class_out_through_a_reference_like_gdb(tmp_path: Path) -> None:
    """ptype of a reference (or pointer) to a class writes the class out, as gdb's show 1
    reaches it through the declarator ('type = struct Shape {...} &')."""
    (tmp_path / "x.cpp").write_text(_CXX)
    subprocess.run(["g++", "-g", "-O0", "-o", "x", "x.cpp"], cwd=tmp_path, check=True)
    commands = ex("break process", "run", "ptype sh", "whatis sh", "ptype &sh", "ptype const Shape &",
                  "ptype Shape *", "ptype/o Shape &", "up", "ptype s")
    assert_like_gdb([*commands, str(tmp_path / "x")], tmp_path)


def test_list_with_an_offset_for_its_end_like_gdb(prog: Path) -> None:
    """`list FIRST,+N` (and -N, +0 being +5, -0 -15) counts the end from FIRST, as gdb's
    linespec offsets from its default line; an end before FIRST lists nothing."""
    commands = ex("list add,+2", "list 3,+1", "list 5,-3", "list", "list 4,+0", "list", "list -", "list main,-1",
                  "list 8,-0", "list")
    assert_like_gdb([*commands, str(prog)], prog.parent)


def test_info_scope_of_a_bare_line_like_gdb(prog: Path) -> None:
    """`info scope 9` is line 9 of the current file (gdb's linespec), not a function '9'."""
    commands = ex("info scope 9", "info scope 99", "info scope prog.c:6", "break add", "run", "info scope 8")
    assert_like_gdb([*commands, str(prog)], prog.parent)


@pytest.mark.parametrize("commands", [
    ("break add", "run", "signal 0"),
    ("break add", "run", "signal SIGUSR1"),
    ("break add", "run", "handle SIGUSR1 nopass", "signal 10"),
    ("signal 0",), ("break add", "run", "signal"), ("break add", "run", "signal 99"),
    ("break add", "run", "signal SIGFOO"),
])
def test_signal_command_like_gdb(prog: Path, commands: tuple[str, ...]) -> None:
    """gdb's `signal SIG`: the program resumes with the signal (0: none), whatever handle
    says of it; gdb's errors. It was an undefined command."""
    assert_like_gdb([*ex(*commands), str(prog)], prog.parent)


@pytest.mark.parametrize("commands", [
    ("info program",), ("break add", "run", "info program"), ("tbreak add", "run", "info program"),
    ("break add", "run", "delete 1", "info program"), ("break main", "run", "next", "info program"),
    ("break main", "run", "until 9", "info program"), ("break main", "run", "advance 9", "info program"),
    ("break add", "run", "finish", "info program"), ("break add", "run", "kill", "info program"),
])
def test_info_program_like_gdb(prog: Path, commands: tuple[str, ...]) -> None:
    """gdb's info program: the process, the stop's pc and why it stopped (a breakpoint, one
    deleted since or momentary, a step); it was an undefined info command."""
    args = ["-batch", "-nx", *ex(*commands), str(prog)]
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    assert re.sub(r"LWP \d+", "LWP N", normalized(got.stdout)) == re.sub(r"LWP \d+", "LWP N", normalized(expected.stdout))
    assert normalized(got.stderr) == normalized(expected.stderr)


def test_backtrace_past_main_option_like_gdb(prog: Path) -> None:
    """bt's -past-main [on|off] applies to that backtrace only (gdb's backtrace options)."""
    commands = ex("break add", "run", "bt -past-main on", "bt -past-main", "bt -past-main off", "bt -past-main on 2",
                  "bt -past-entry off 1", "bt", "show backtrace past-main")
    args = ["-batch", "-nx", *commands, str(prog)]
    expected, got = theirs(args, prog.parent), ours(args, prog.parent)
    assert _modulo_stack(got.stdout) == _modulo_stack(expected.stdout)
    assert _modulo_stack(got.stderr) == _modulo_stack(expected.stderr)


def test_read_watchpoint_passes_writes_like_gdb(prog: Path) -> None:
    """x86 traps every access for a read watchpoint: gdb takes a hit whose value changed
    for a write and goes on (bpstat_check_watchpoint); a hit after the access shows its
    pc mid-line ('0x... in main (...)')."""
    commands = ex("break main", "run", "rwatch s", "continue", "continue", "continue", "info watchpoints",
                  "delete", "awatch glob", "continue")
    assert_like_gdb([*commands, str(prog)], prog.parent)


def test_show_cwd_like_gdb(prog: Path) -> None:
    """`show cwd` says the inferior's directory is unset until `set cwd` (as typed, `~`
    kept), and again after `set cwd` alone; $_gdb_setting_str("cwd") the same."""
    commands = ex("show cwd", 'p $_gdb_setting_str("cwd")', "set cwd ~/x", "show cwd", 'p $_gdb_setting_str("cwd")',
                  "set cwd", "show cwd", 'p $_gdb_setting("cwd")')
    assert_like_gdb([*commands, str(prog)], prog.parent)


def test_info_variables_nondebugging_cxx_symbols_like_gdb(tmp_path: Path) -> None:
    """info variables matches and lists a C++ minimal symbol by its demangled name
    ('typeinfo for Shape', not _ZTI5Shape), leaves out one the debug info defines (a
    static member) and the @got.plt slots gdb does not list."""
    source = _CXX.replace("struct Shape {", "struct Shape { static int total;") + "int Shape::total = 3;\n"
    (tmp_path / "x.cpp").write_text(source)
    subprocess.run(["g++", "-g", "-O0", "-o", "x", "x.cpp"], cwd=tmp_path, check=True)
    commands = ex("info variables total", "info variables typeinfo", "info variables vtable", "info variables ^_Z",
                  "info variables got.plt", "info functions @plt")
    assert_like_gdb([*commands, str(tmp_path / "x")], tmp_path)
