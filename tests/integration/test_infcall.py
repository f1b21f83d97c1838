"""Calls into the program from expressions (`print f(x)`, `call f(x)`), compared with gdb 13
on tests/programs/infcall.c: each SysV x86-64 argument and return class, void functions,
function pointers, a library function, gdb's errors, and a call that stops at a breakpoint
or faults. The engine's own checks: no trap or register is left changed by a call, and the
program's other thread stays stopped while it runs."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.gdb import gdb_env, gdb_outputs_at
from tests.support.gdb_calls import expected_outputs, gdb_could_not_call
from tests.support.mi_console import console_at

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = "infcall.c"
FLAGS = ("-g", "-O0", "-pthread", "-no-pie")  # the entry point (the return trap) at its link address


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("infcall", flags=FLAGS)


def gdb_outputs(program: Path, location: str, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, location, commands)


def at_main() -> str:
    return f"{SOURCE}:{marker_line(SOURCE, 'main')}"


def test_argument_and_return_classes_like_gdb(program: Path) -> None:
    commands = [
        "print add(x, 2)", "call add(1, 2)", "call bump(1)", "print bump(1)", "print calls_made",
        "print sum8(1, 2, 3, 4, 5, 6, 7, 8)", "print scale(1.5, 2)", "print halve(3)", "print first(msg)",
        "print first(\"xyz\")", "print wrap(255)", "print make_pair(1, 2)", "print make_mixed(7, 1.25)",
        "print make_big(5)", "print pair_sum(p)", "print mixed_sum(m)", "print big_sum(b)", "print *where()",
        "print twice_ptr(4)", "print (*twice_ptr)(5)", "print abs(-3)", "print add(1, 2) + add(3, 4)",
        "whatis add(1, 2)", "print sizeof(make_big(1))", "print calls_made",
    ]  # fmt: skip
    # What infcall.c's functions return, calls_made counting add's calls and bump's steps.
    known = ["$1 = 22", "$2 = 3", "", "$3 = void", "$4 = 4", "$5 = 204", "$6 = 3", "$7 = 1.5", "$8 = 97 'a'",
             "$9 = 120 'x'", "$10 = 0 '\\000'", "$11 = {a = 1, b = 2}", "$12 = {l = 7, d = 1.25}",
             "$13 = {v = {5, 6, 7, 8}}", "$14 = 7", "$15 = 5.5", "$16 = 46", "$17 = 4", "$18 = 8", "$19 = 10",
             "$20 = 3", "$21 = 10", "type = int", "$22 = 32", "$23 = 6"]  # fmt: skip
    expected = expected_outputs(gdb_outputs(program, at_main(), commands), dict(enumerate(known)), whole=True)
    assert expected[0] == "$1 = 22" and expected[2] == ""  # the oracle ran: call of void prints nothing
    assert console_at(program, at_main(), commands, gdb_env()) == expected


def test_errors_like_gdb(program: Path) -> None:
    # strlen: gdb 13 finds ld.so's own (no GNU IFUNC, an assembler DIE with no return type)
    # before libc's IFUNC, so it asks for a cast; cast, the call runs.
    commands = ["print add(1)", "print x(1)", "print p(1)", "print (int)getpid() > 0", "print pair_sum(1)",
                "print strlen(msg)", "print strlen(\"abc\")", "print (long)strlen(\"hello\")"]  # fmt: skip
    expected = expected_outputs(gdb_outputs(program, at_main(), commands), {3: "$1 = 1", 7: "$2 = 5"})
    assert expected[0] == "Too few arguments in function call."
    assert console_at(program, at_main(), commands, gdb_env()) == expected


def test_a_function_without_a_return_type_asks_for_a_cast(program: Path) -> None:
    # gdb names the function by its symbol at the address, which varies (getpid, __GI_getpid).
    got = console_at(program, at_main(), ["print getpid()"], gdb_env())
    assert got[0].endswith("getpid' has unknown return type; cast the call to its declared return type")


def test_no_process_like_gdb(program: Path) -> None:
    got = console_at_start(program, ["print add(1, 2)"])
    assert got == ["You can't do that without a process to debug."]


def console_at_start(program: Path, commands: list[str]) -> list[str]:
    from tests.support.mi_client import MiClient
    from tests.support.mi_console import mi_quote
    from tests.support.mi_grammar import parse_record

    client = MiClient(["-i=mi", "-q", str(program)], env=gdb_env())
    try:
        client.prompt()
        outputs = []
        for command in commands:
            record, seen = client.command(f"-interpreter-exec console {mi_quote(command)}")
            text = "".join(parse_record(line).text for line in seen if line.startswith("~"))
            outputs.append(text + (str(record.results["msg"]) if record.cls == "error" else ""))
        return outputs
    finally:
        client.close()


def test_a_call_that_stops_or_faults_like_gdb(program: Path) -> None:
    inside = f"{SOURCE}:{marker_line(SOURCE, 'in_stops')}"
    commands = [f"break {inside}", "print stops(1) + 1", "frame", "continue", "print x", "print crashes(0)",
                "frame"]  # fmt: skip
    gdbs = gdb_outputs(program, at_main(), commands)
    line = marker_line(SOURCE, "in_stops")
    known = {0: gdbs[0], 3: gdbs[3], 1: STOPPED.format("stops"), 2: frame_text("stops (x=1)", line), 4: "$1 = 20",
             5: SIGNALED.format("crashes"), 6: frame_text("crashes (p=0x0)", line + 2)}  # fmt: skip
    expected = expected_outputs(gdbs, known, whole=True)
    got = console_at(program, at_main(), commands, gdb_env())
    if gdb_could_not_call(*gdbs):  # the faulting instruction's address is the compiler's
        got[6] = re.sub(r"#0  0x[0-9a-f]{16} in ", "#0  ", got[6])
    assert "stopped while in a function called from GDB" in expected[1]
    assert "signaled while in a function called from GDB" in expected[5]
    # gdb's driver does not capture the stop's own lines; the console shows them first.
    assert '\nThread 1 "infcall" hit Breakpoint 2, stops (x=1) at ' in got[1]  # a threaded program
    assert '\nThread 1 "infcall" received signal SIGSEGV, Segmentation fault.' in got[5]
    for index in (1, 5):
        assert _error_part(got[index]) == _error_part(expected[index]), commands[index]
    for index in (2, 4, 6):  # `continue`: gdb stops silently where the call was made
        assert got[index] == expected[index], commands[index]


def _error_part(text: str) -> str:
    return text[text.index("The program being debugged") :]


# gdb 13's words where a call stops (infcall.c's call_function_by_hand), for the hosts where
# gdb cannot call (tests/support/gdb_calls.py).
STOPPED = (
    "The program being debugged stopped while in a function called from GDB.\n"
    "Evaluation of the expression containing the function\n({}) will be abandoned.\n"
    "When the function is done executing, GDB will silently stop."
)
SIGNALED = (
    "The program being debugged was signaled while in a function called from GDB.\n"
    "GDB remains in the frame where the signal was received.\n"
    'To change this behavior use "set unwindonsignal on".\n'
    "Evaluation of the expression containing the function\n({}) will be abandoned.\n"
    "When the function is done executing, GDB will silently stop."
)


def frame_text(function: str, line: int) -> str:
    """`frame`'s two lines for FUNCTION at infcall.c's LINE."""
    path = PROGRAMS_DIR / SOURCE
    return f"#0  {function} at {path}:{line}\n{line}\t{path.read_text().splitlines()[line - 1]}"



def test_a_call_leaves_no_trap_nor_register_changed_and_holds_other_threads(program: Path) -> None:
    # The bytes at the return trap (the entry point), every general and vector register,
    # and the ticker thread's counter are the same before and after calls.
    entry = struct.unpack_from("<Q", program.read_bytes(), 24)[0]  # e_entry
    commands = ["info registers", "info all-registers", f"x/8xb {entry:#x}", "print ticks",
                "print add(1, 2)", "print make_big(1)", "print scale(2, 3)", "print tick_count()",
                "info registers", "info all-registers", f"x/8xb {entry:#x}", "print ticks"]  # fmt: skip
    got = console_at(program, at_main(), commands, gdb_env())
    assert got[0] == got[8] and got[1] == got[9] and got[2] == got[10]
    # What the program's memory holds there: no int3 (0xcc) left behind.
    code = bytes(int(b, 16) for b in got[10].split(":")[1].split())
    assert code == program.read_bytes()[entry - 0x400000 : entry - 0x400000 + 8]
    ticks_before = got[3].split(" = ")[1]
    assert got[7].split(" = ")[1] == ticks_before == got[11].split(" = ")[1]


def test_unwindonsignal_and_may_call_functions_like_gdb(program: Path) -> None:
    commands = ["show unwindonsignal", "show may-call-functions", "set unwindonsignal on", "show unwindonsignal",
                "print crashes(0)", "frame", "print add(1, 2)", "set may-call-functions off", "print add(1, 2)",
                "call bump(1)", "print x", "set may-call-functions on", "print add(2, 2)"]  # fmt: skip
    gdbs = gdb_outputs(program, at_main(), commands)
    restored = (
        "The program being debugged was signaled while in a function called from GDB.\n"
        "GDB has restored the context to what it was before the call.\n"
        'To change this behavior use "set unwindonsignal off".\n'
        "Evaluation of the expression containing the function\n(crashes) will be abandoned."
    )
    known = {i: gdbs[i] for i in (0, 1, 2, 3, 7, 8, 9, 11)}  # no call: gdb's own
    known |= {4: restored, 5: frame_text("main ()", marker_line(SOURCE, "main")), 6: "$1 = 3",
              10: "$2 = 20", 12: "$3 = 4"}  # fmt: skip
    expected = expected_outputs(gdbs, known, whole=True)
    assert expected[8] == "Cannot call functions in the program: may-call-functions is off."
    got = console_at(program, at_main(), commands, gdb_env())
    # gdb shows the signal's stop before unwinding (its driver keeps those lines apart).
    assert _error_part(got[4]) == _error_part(expected[4])
    assert "GDB has restored the context to what it was before the call." in got[4]
    assert [g for i, g in enumerate(got) if i != 4] == [e for i, e in enumerate(expected) if i != 4]


def test_backtrace_inside_a_stopped_call_like_gdb(program: Path) -> None:
    # The call's frame is gdb's <function called from gdb>; the caller's frames follow,
    # unwound from the state saved before the call (the stack holds none of them there).
    inside = f"{SOURCE}:{marker_line(SOURCE, 'in_stops')}"
    commands = [f"break {inside}", "print stops(1) + 1", "bt", "frame 2", "print x", "up", "down",
                "print crashes(0)", "bt"]  # fmt: skip
    expected = gdb_outputs(program, at_main(), commands)
    assert expected[2].splitlines()[1] == "#1  <function called from gdb>"
    got = console_at(program, at_main(), commands, gdb_env())
    for index in (2, 3, 4, 5, 6, 8):
        assert got[index] == expected[index], commands[index]


def test_finish_out_of_a_stopped_call_like_gdb(program: Path) -> None:
    # The function returns into the call's frame, which is popped at once: the value is
    # the one it returned (in rax or xmm0), not what the popped state held there.
    inside = f"{SOURCE}:{marker_line(SOURCE, 'in_stops')}"
    args = ["-batch", "-nx", *ex(f"break {at_main()}", "run", f"break {inside}", "break halve",
                                 "print stops(1)", "print stops(5)", "print halve(3)",
                                 "finish", "finish", "finish", "bt 1"), str(program)]  # fmt: skip

    def kept(text: str) -> list[str]:  # from the first call on: no thread's LWP
        lines = normalized(text).splitlines()
        return lines[next(i for i, line in enumerate(lines) if "hit Breakpoint 2," in line):]

    got = kept(ours(args, program.parent).stdout)
    gdbs = theirs(args, program.parent)
    if gdb_could_not_call(gdbs.stdout, gdbs.stderr):
        # Each finish pops one frame: halve(3) returns 1.5 into stops(5)'s call, which
        # returns 6 into stops(1)'s, which returns 2 into main (the value test's own check).
        def hit(number: int, function: str, line: int) -> list[str]:
            return ["", f'Thread 1 "infcall" hit Breakpoint {number}, ' + frame_text(function, line)[4:]]

        def finished(function: str, line: int, value: str) -> list[str]:
            return [*frame_text(function, line)[4:].splitlines(), f"Value returned is {value}"]

        half = next(i for i, text in enumerate((PROGRAMS_DIR / SOURCE).read_text().splitlines(), 1) if " halve(" in text)
        line, main = marker_line(SOURCE, "in_stops"), marker_line(SOURCE, "main")
        text = [*hit(2, "stops (x=1)", line), *hit(2, "stops (x=5)", line), *hit(3, "halve (f=3)", half),
                *finished("stops (x=5)", line, "$1 = 1.5"), *finished("stops (x=1)", line, "$2 = 6"),
                *finished("main ()", main, "$3 = 2"), frame_text("main ()", main).splitlines()[0]]  # fmt: skip
        expected = kept("\n".join(text))
    else:
        expected = kept(gdbs.stdout)
    assert got == expected
    assert "Value returned is $3 = 2" in got


def test_casts_to_function_pointer_types_like_gdb(program: Path) -> None:
    # `(int (*) (float, float)) f`: an abstract function declarator, called through with
    # the arguments converted to the cast's parameters; `(int (*))` is a plain pointer.
    args = ["-batch", "-nx", *ex(f"break {at_main()}", "run",
                                 "p ((float (*) (float)) halve)(3)", "p ((double (*) (double, float)) scale)(2, 1.5)",
                                 "p *((int *(*) (void)) where)()", "p ((int (*)(int)) twice)(4)",
                                 "whatis (int (*) (float, ...)) halve", "ptype (char **(**) ()) 0",
                                 "p (int (*)) main", "p sizeof (long (*)(int))", "p (int (*)(int,)) 0"),
            str(program)]  # fmt: skip

    def kept(text: str) -> list[str]:  # from the first print on: no thread's LWP
        lines = normalized(text).splitlines()
        return lines[next(i for i, line in enumerate(lines) if line.startswith("$1 =")):]

    mine, gdbs = ours(args, program.parent), theirs(args, program.parent)
    got = kept(mine.stdout + mine.stderr)
    if gdb_could_not_call(gdbs.stdout, gdbs.stderr):
        # halve(3), scale(2, 1.5), calls_made before any call, twice(4); gdb's other lines
        # (no call) follow, its value numbers 4 on.
        lines = normalized(gdbs.stdout + gdbs.stderr).splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("type = "))
        rest = [re.sub(r"^\$(\d+) =", lambda m: f"${int(m[1]) + 4} =", line) for line in lines[start:]]
        expected = ["$1 = 1.5", "$2 = 3", "$3 = 0", "$4 = 8", *(line for line in rest if not gdb_could_not_call(line))]
    else:
        expected = kept(gdbs.stdout + gdbs.stderr)
    assert got == expected
    assert "$1 = 1.5" in got


def test_a_breakpoint_at_the_called_function_is_hit_like_gdb(program: Path) -> None:
    # The call starts at the function's first instruction: a breakpoint there is hit (gdb
    # proceeds to an address, no step over it), the first call's and the next one's alike
    args = ["-batch", "-nx", *ex(f"break {at_main()}", "run", "break *add", "print add(1, 2)", "bt", "continue",
                                 "print add(2, 2)", "bt"), str(program)]  # fmt: skip

    def kept(text: str) -> list[str]:  # from the first call on: no thread's LWP
        lines = normalized(text).splitlines()
        return lines[next(i for i, line in enumerate(lines) if "hit Breakpoint 2," in line):]

    mine, gdbs = ours(args, program.parent), theirs(args, program.parent)
    got = kept(mine.stdout + mine.stderr)
    # Where gdb cannot write the registers back, its calls still run and stop at add: only
    # `continue`, popping the first call's frame, fails with that error (silent where it works).
    assert got == [line for line in kept(gdbs.stdout + gdbs.stderr) if not gdb_could_not_call(line)]
    assert got.count("The program being debugged stopped while in a function called from GDB.") == 2
