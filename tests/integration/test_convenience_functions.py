"""gdb 13's built-in convenience functions ($_streq, $_strlen, $_memeq, $_regex, $_as_string,
$_isvoid, the $_caller_is family) against gdb on one program (user_cmds.c): in print, in a
breakpoint's condition (break ... if, condition) and in MI's -data-evaluate-expression and
var objects; gdb evaluates them itself, never calling into the program."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, assert_like_rust_gdb, ex, needs_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx, find_rustc
from tests.support.gdb_calls import assert_like_gdb_calls
from tests.support.mi_client import MiClient

pytestmark = needs_gdb


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("user_cmds")


def _leaf() -> str:
    return f"user_cmds.c:{marker_line('user_cmds.c', 'leaf')}"


def test_string_functions_in_print_and_conditions(prog: Path) -> None:
    # $_memeq(msg, "hx", 1) and (.., 2) copy "hx" into the program by its malloc; where gdb
    # cannot call, their values are msg's ("hi"): 1 and 0.
    got = assert_like_gdb_calls([*ex(
        "p $_isvoid($_exitcode)", "p $_strlen(\"abc\")", "whatis $_strlen(\"abc\")", "p $_streq(\"a\")",
        "p $_streq(\"a\", \"a\", 3)", "p $_memeq(buffer, \"hex\", 2)",
        f"break {_leaf()} if $_streq(msg, \"hi\")", "run",
        "p $_streq(msg, \"hi\")", "p $_strlen(msg)", "p $_memeq(msg, \"hx\", 1)", "p $_memeq(msg, \"hx\", 2)",
        "p $_memeq(msg, \"hx\", -2)", "p $_memeq(buffer, &buffer[0], 3)", "p $_regex(msg, \"^h.$\")",
        "p $_regex(\"abc\", \"(\")", "p $_as_string(n)", "p $_as_string(msg)", "p $_as_string(buffer)",
        "p $_strlen(buffer)", "p $_isvoid(n)", "p $_isvoid($nothing)", "p $_isvoid()", "p $_streq(n, \"hi\")",
        "set $_streq = 5", "p $_isvoid($_exitcode)",
        "condition 1 $_strlen(msg) == 5", "continue", "p msg",
        "delete", "continue", "p $_isvoid($_exitcode)", "p $_exitcode",
    ), str(prog)], prog.parent, {5: "1", 6: "0"})
    assert "Breakpoint 1, leaf (msg=" in got.stdout and '"hi", n=1)' in got.stdout
    assert '"three"' in got.stdout


def test_caller_functions(prog: Path) -> None:
    assert_like_gdb([*ex(
        "p $_caller_is(\"main\")", f"break {_leaf()}", "run",
        "p $_caller_is(\"middle\")", "p $_caller_is(\"main\")", "p $_caller_is(\"main\", 2)",
        "p $_any_caller_is(\"main\")", "p $_any_caller_is(\"main\", 1)", "p $_any_caller_is(\"main\", 2)",
        "p $_caller_matches(\"mid\")", "p $_any_caller_matches(\"^ma\", 3)", "p $_caller_is(\"leaf\", 0)",
        "p $_caller_is(\"x\", -1)", "p $_caller_is(\"x\", 10)", "up", "p $_caller_is(\"main\")",
        "delete", f"break {_leaf()} if $_any_caller_is(\"middle\") && n == 2", "continue", "p n",
    ), str(prog)], prog.parent)


def _mi_answers(prog: Path, *, gdb: bool) -> list[object]:
    client = MiClient(["-i=mi", "-nx", "-q", str(prog)], cwd=prog.parent, gdb=gdb)
    try:
        client.prompt()
        client.ok(f'-break-insert -c "$_streq(msg, \\"three\\")" {_leaf()}')
        client.ok("-exec-run")
        stop = client.stopped().results
        answers: list[object] = [stop.get("frame")]
        for command in ('-data-evaluate-expression "$_strlen(msg)"',
                        '-data-evaluate-expression "$_caller_is(\\"middle\\")"',
                        '-data-evaluate-expression "$_as_string(n + 1)"',
                        '-var-create v * "$_streq(msg, \\"three\\")"'):
            result, _ = client.command(command)
            answers.append((result.cls, dict(result.results.items)))
        return answers
    finally:
        client.close()


def test_functions_in_mi_evaluate_and_var_objects(prog: Path) -> None:
    ours, theirs = _mi_answers(prog, gdb=False), _mi_answers(prog, gdb=True)
    assert ours == theirs
    assert ours[1] == ("done", {"value": "5"})  # $_strlen("three")


def test_python_functions_answer_the_languages_bool(builder: Builder) -> None:
    """gdb's Python functions return a Python bool, which gdb makes the language's bool:
    C++'s `true` (ours printed 1, C's int). A $_caller_is whose walk ends before NAME's
    frame (past the outermost) is false without reading NAME, which a Rust &str cannot give."""
    if find_cxx() is None or find_rustc() is None:
        pytest.skip("g++ or rustc not installed")
    more = MoreBuilder(builder.cache_dir)
    cpp = more.build_cpp("cpp_map_keys", CPP_FLAGS)
    where = f"cpp_map_keys.cpp:{marker_line(PROGRAMS_DIR / 'cpp_map_keys.cpp', 'here')}"
    got = assert_like_gdb([*ex(f"break {where}", "run", 'p $_streq("a", "a")', 'p $_regex("abc", "^a")',
                               'p $_caller_is("main", 0)', 'p $_memeq("ab", "ab", 2)', "p $_isvoid(1)",
                               'whatis $_streq("a", "a")'), str(cpp)], cpp.parent)  # fmt: skip
    assert "$1 = true\n$2 = true\n$3 = true\n$4 = true\n$5 = 0\ntype = int\n" in got.stdout
    rust = more.build_rust("rust_frames")
    got = assert_like_rust_gdb([*ex("break rust_frames::area", "run", 'p $_caller_is("x", 40)', 'p $_any_caller_is("x", 1)'),
                           str(rust)], rust.parent)  # fmt: skip
    assert "$1 = false\n" in got.stdout and "Trying to read string with inappropriate type `&str'." in got.stderr
