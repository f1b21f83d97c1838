"""`print EXPR` through our evaluator compared with gdb's at the same breakpoint."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import Programs, gdb_print, gdb_run  # type: ignore[import-not-found]

pytestmark = pytest.mark.timeout(120)

FLAGS = [("-g", "-O0", "-gdwarf-5"), ("-g", "-O0", "-gdwarf-4", "-no-pie")]

C_EXPRESSIONS = [
    # names, members, pointers
    "i", "n", "s", "*s", "s[1]", "p", "p.x", "pp->y", "(*pp).x", "pp[0]", "&i", "*ip", "ip",
    "&local_pt", "&local_pt.y", "buf", "buf[0]", "&buf", "&buf[1]", "*buf", "arr", "arr[3]",
    "fp", "*fp", "add", "&add", "c", "u", "d", "gpoints[1]", "gpoints[2].y", "&gpoints[1]",
    "matrix[1]", "matrix[1][2]", "n1.next->next->value", "n1.next->next->next", "*n1.next",
    "gouter.in.weights[1]", "gouter.label", "gouter.fn", "gflags.b", "gflags.e", "tls_var",
    "gcolor", "gperm", "greeting", "*greeting", "escapes", "big[299]",
    # arithmetic and conversions
    "i + 1", "i * n - 3", "u + 1", "u * 2", "-u", "~i", "!i", "i / 3", "i % 3", "-7 / 2",
    "-7 % 2", "7 / -2", "1 << 31", "1u << 31", "-1 >> 1", "d * 2", "d + i", "gfloat * 2",
    "gfloat + gfloat", "gdouble / 3", "10 / 4.0", "1.0 / 0", "gchar", "gchar + 1", "guchar",
    "gschar * 2", "gshort - 1", "gll * 2", "gul + 1", "gul / 2", "gbool", "gbool + 1",
    "0x7fffffff + 1", "2147483647 + 1", "4294967295", "4294967296", "0xffffffff", "017",
    "0b101", "10u", "-1u", "'a'", "'\\n'", "'\\0'", "'a' + 1", "1.5f", "2.5", "1e3", "100000000000",
    # comparisons, logic, ternary
    "i == 2", "i != 2", "i < n", "u > 0", "-1 < 0u", "d < 0", "i && 0", "i || 0", "0 && nosuch",
    "1 || nosuch", "i ? 10 : 20", "i > 5 ? c : 1", "pp == &gpoint", "ip != 0", "!gnull",
    # pointer arithmetic
    "ip + 1", "&arr[3] - &arr[0]", "&arr[0] + 2", "*(&arr[0] + 3)", "buf + 1", "*(buf + 1)",
    "s + 1", "&gpoints[2] - &gpoints[0]", "(char *)&gpoints[1] - (char *)&gpoints[0]",
    "gpoints + 1", "*(gpoints + 1)", "&matrix[1][0] - &matrix[0][0]",
    # casts and sizeof
    "(char)i", "(unsigned char)300", "(short)70000", "(long)d", "(int)d", "(double)i",
    "(float)1", "(unsigned)-1", "(long)&i == (long)ip", "(struct point *)pp", "*(struct point *)pp",
    "(point_t *)pp", "(myint)5", "(myint2)gmy", "(enum color)5", "(enum color)1",
    "(enum perm)3", "(char *)greeting", "(void *)0", "(int *)0", "sizeof(int)", "sizeof(long)",
    "sizeof i", "sizeof(struct point)", "sizeof(point_t)", "sizeof gpoints", "sizeof(gpoints)/sizeof(gpoints[0])",
    "sizeof(char *)", "sizeof(struct outer)", "sizeof buf", "sizeof(union number)",
    "sizeof(struct flags)", "(unsigned char)guchar", "(int)gcolor", "gcolor == GREEN", "GREEN",
    "BLUE + 1", "RED", "PERM_W | PERM_R",
    # registers
    "$pc == $rip", "$sp == $rsp",
    # errors
    "nosuch", "*i", "gpoint.z", "pp->z", "1 / 0", "i % 0", "gpoint + 1", "&1",
    "i = ", "(struct nosuch *)0", "*gvoid", "gpoint.x.y", "i.x",
]  # fmt: skip


def norm(text: str) -> str:
    return re.sub(r"0x7ff[0-9a-f]{9}", "<stack>", text)


def compare_prints(binary: Any, stop: Any, marker: str, exprs: list[str]) -> list[str]:
    expected = gdb_print(binary, marker, exprs)
    problems = []
    for expr in exprs:
        ours = stop.print(expr)
        if norm(ours) != norm(expected[expr]):
            problems.append(f"{expr!r}: ours {ours!r} gdb {expected[expr]!r}")
    return problems


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f))
def test_c_expressions_like_gdb(programs: Programs, stop_at: Any, flags: tuple[str, ...]) -> None:
    binary = programs.build("values.c", *flags)
    stop = stop_at(binary, "locals")
    problems = compare_prints(binary, stop, "locals", C_EXPRESSIONS)
    assert not problems, "\n".join(problems)


TYPE_EXPRS = [
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r",
    "s", "t", "u", "v", "w", "x", "y", "z", "aa", "&s", "&w", "*o", "&main", "main", "s[1]",
    "&p[1]", "*x", "t.x", "n", "*n", "a + 1", "c + c", "d * 2u", "g + a", "h * 2", "1.5f + 1",
    "i", "j + 0", "sizeof(int)", "&k", "'c'", "k[0]", "v", "v + 1", "a < 1", "(char)1",
]  # fmt: skip


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f))
def test_type_names_like_gdb_whatis(
    programs: Programs, stop_at: Any, flags: tuple[str, ...]
) -> None:
    from aliceserver.debuggers.symbols.dwarf.expr import FrameSymbols, evaluate_expression

    binary = programs.build("typenames.c", *flags)
    expected = gdb_run(binary, "types", [f"whatis {e}" for e in TYPE_EXPRS])
    stop = stop_at(binary, "types")
    problems = []
    for expr, want in zip(TYPE_EXPRS, expected, strict=True):
        value = evaluate_expression(expr, FrameSymbols.at(stop.symbols, stop.frame))
        ours = f"type = {value.type}"
        if ours != want:
            problems.append(f"{expr!r}: ours {ours!r} gdb {want!r}")
    assert not problems, "\n".join(problems)


FORMATTED = [
    ("x", "i"), ("x", "u"), ("x", "-1"), ("x", "gshort"), ("x", "gchar"), ("x", "gpoint"),
    ("x", "arr"), ("x", "ip"), ("x", "gbool"), ("x", "gcolor"), ("x", "buf"), ("x", "gflags"),
    ("o", "i"), ("o", "0"), ("o", "gschar"), ("t", "i"), ("t", "gschar"), ("t", "0"),
    ("d", "u"), ("d", "guchar"), ("u", "gschar"), ("u", "-1"), ("c", "65"), ("c", "gschar"),
    ("z", "i"), ("z", "gshort"), ("a", "fp"), ("a", "&gpoints[1]"), ("x", "d"), ("d", "gfloat"),
    ("x", "gnum"), ("d", "gperm"), ("x", "matrix"),
]  # fmt: skip


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f))
def test_print_formats_like_gdb(programs: Programs, stop_at: Any, flags: tuple[str, ...]) -> None:
    binary = programs.build("values.c", *flags)
    expected = gdb_run(binary, "locals", [f"print/{f} {e}" for f, e in FORMATTED])
    stop = stop_at(binary, "locals")
    problems = []
    for (fmt, expr), want in zip(FORMATTED, expected, strict=True):
        want = re.sub(r"^\$\d+ = ", "", want)
        ours = stop.print(expr, fmt=fmt)
        if norm(ours) != norm(want):
            problems.append(f"/{fmt} {expr!r}: ours {ours!r} gdb {want!r}")
    assert not problems, "\n".join(problems)


ASSIGNMENTS = [
    "i = 5", "i", "i += 3", "i", "u = -1", "u", "d = 2.75", "d", "buf[1] = 'z'", "buf",
    "local_pt.y = -9", "local_pt", "arr[2] = 1L << 40", "arr", "*ip = 77", "i", "c = GREEN",
    "c", "gflags.b = 7", "gflags", "gflags.a = 9", "gflags", "gfloat = 1.25", "gfloat",
    "gpoint = local_pt", "gpoint", "ip = 0", "ip", "gbool = 0", "gbool", "3 = 4", "i = nosuch",
    "tls_var = -1", "tls_var", "pp->x = 123", "gpoint.x", "n = n * 2", "n",
]  # fmt: skip


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f))
def test_assignments_like_gdb(programs: Programs, stop_at: Any, flags: tuple[str, ...]) -> None:
    binary = programs.build("values.c", *flags)
    expected = gdb_run(binary, "locals", [f"print {e}" for e in ASSIGNMENTS])
    stop = stop_at(binary, "locals")
    problems = []
    for expr, want in zip(
        ASSIGNMENTS, expected, strict=True
    ):  # in order: each sees the writes before
        want = re.sub(r"^\$\d+ = ", "", want)
        ours = stop.print(expr)
        if norm(ours) != norm(want):
            problems.append(f"{expr!r}: ours {ours!r} gdb {want!r}")
    assert not problems, "\n".join(problems)


MORE = [
    "gtag", "garr", "gh", "grows", "gld", "gz", "gzf", "gwc", "gc16", "gc32", "gwide", "gbytes",
    "gparr", "*gparr", "gmat", "gvol", "gflex", "*gflex", "gflex->data", "gflex->data[2]",
    "gnullstr", "gnl", "gsc", "gtag.lo", "gtag.f", "garr.fns[0]", "&gtag", "gparr[0][1]",
    "sizeof(gtag)", "garr.ptrs[1]", "*garr.ptrs[1]", "grows[1]", "&grows[1]", "gld * 2",
    "result", "gtag.i + gtag.hi", "gwidep", "*gwidep", "gwide[1]", "&gwide",
]  # fmt: skip


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f))
def test_less_common_shapes_like_gdb(
    programs: Programs, stop_at: Any, flags: tuple[str, ...]
) -> None:
    binary = programs.build("more.c", *flags)
    stop = stop_at(binary, "more")
    problems = compare_prints(binary, stop, "more", MORE)
    assert not problems, "\n".join(problems)
