"""C++ methods and operators in expressions through libstdc++'s xmethods (loaded with its
printers from where libstdc++ installed them): `v[1]`, `v.size()`, `*up`, `up->name`,
`sp->w`, `dq[2]`, `arr.at(3)` evaluate without running the program, as gdb 13 evaluates
them; methods only the program has are refused in gdb's words. The same evaluator serves
console print, MI -data-evaluate-expression, DAP evaluate and breakpoint conditions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.batch import assert_like_gdb, ex
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.core_backend import core_of_stop
from tests.support.cores import gdb_gcore
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session
from tests.support.gdb import gdb_env, gdb_outputs_at, gdb_path, run_gdb
from tests.support.mi_console import console_at, mi_quote
from tests.support.mi_grammar import parse_record

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
    pytest.mark.both_backends,
]

SOURCE = PROGRAMS_DIR / "cpp_xmethods.cpp"
LINE = marker_line(SOURCE, "main")
LOCATION = f"cpp_xmethods.cpp:{LINE}"

# Each answered by an xmethod, or refused as gdb refuses it (no xmethod, and the method
# was never emitted: "may be inlined"; none of that name: "Couldn't find method").
PRINTS = [
    "p v[1]", "p v.size()", "p v.empty()", "p v.front()", "p v.back()", "p v.at(2)",
    "p v.at(5)", "p v[1] + v[2]", "p v.size() == 3", "p v.foo()", "p v.size(1)", "p v.at()",
    "p vb[1]", "p vb.size()", "p vb.front()", "p rects[1]", "p rects[1].h",
    "p rects.front().w", "p rects[0].area()", "p none.empty()", "p none.size()",
    "p none.front()", "p m[\"b\"]", "p m.size()", "p m.empty()", "p s.size()", "p um.size()",
    "p *up", "p up->value", "p up->name", "p up.get()", "p (*up).value", "p up.get()->value",
    "p up->nosuch", "p &*up", "p ua[1]", "p *sp", "p sp->w", "p sp.get()", "p sp.get()->w",
    "p sp.use_count()", "p opt.value()", "p opt.has_value()", "p dq[2]", "p dq.size()",
    "p dq.front()", "p dq.back()", "p l.front()", "p l.back()", "p l.size()",
    "p fl.front()", "p fl.empty()", "p arr[1]", "p arr.size()", "p arr.front()",
    "p arr.at(3)", "p bs.count()", "p bs[1]", "p plain.area()", "p *plain", "p plain->w",
    "p plain[0]", "p *m", "p m->x", "p (long)v.size() + 1", "p v[-1]", "p sizeof(v[0])",
    "p &v[1]", "p -v[0]", "p !v.empty()", "whatis v[1]", "p v[1] = 5", "p v[1]",
]  # fmt: skip


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_xmethods", (*CPP_FLAGS, "-std=c++20"))


def gdb_outputs(program: Path, location: str, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, location, commands)


@pytest.fixture(scope="module")
def expected(program: Path) -> list[str]:
    answers = gdb_outputs(program, LOCATION, PRINTS)
    if answers[0] != "$1 = 20":
        pytest.skip(f"gdb has no libstdc++ xmethods here (not installed?): {answers[0]}")
    return answers


def test_console_print_matches_gdb(program: Path, expected: list[str], backend: str, tmp_path: Path) -> None:
    # A core cannot be written (gdb: Cannot access memory; test_a_core_refuses_as_gdb):
    # over one, the prints before `p v[1] = 5`.
    prints = PRINTS if backend == "live" else PRINTS[: PRINTS.index("p v[1] = 5")]
    got = console_at(program, LOCATION, prints, gdb_env(), core_of_stop(backend, tmp_path))
    assert list(zip(prints, got, strict=True)) == list(zip(prints, expected, strict=False))


def test_a_core_refuses_as_gdb(program: Path, tmp_path: Path) -> None:
    """On gdb's core of the stop: a method never emitted (whether or not a process could
    run it) and a write, refused as gdb refuses them on the same core."""
    core = tmp_path / "gdb.core"
    gdb_gcore(program, [], LOCATION, core)
    commands = ["p rects[0].area()", "p plain.area()", "p v[1] = 5", "p v[1]", "p v.size()"]
    got = assert_like_gdb([*ex(*commands), str(program), str(core)], tmp_path)
    assert got.stderr.count("Cannot evaluate function -- may be inlined") == 2


def test_breakpoint_condition_calls_an_xmethod(program: Path, expected: list[str], backend: str, tmp_path: Path) -> None:
    """`break ... if grow.size() == 2` stops at the third pass, as in gdb."""
    line = marker_line(SOURCE, "grow")
    commands = ["p i", "p grow.size()", "p grow[1]"]
    wanted = run_gdb(program, [f"break cpp_xmethods.cpp:{line} if grow.size() == 2", "run", *commands],
                     env=gdb_env())  # fmt: skip
    gdb = [(r.error or r.output).strip("\n") for r in wanted[2:]]
    assert gdb == ["$1 = 2", "$2 = 2", "$3 = 1"]
    location = f'-c {mi_quote("grow.size() == 2")} cpp_xmethods.cpp:{line}'
    assert console_at(program, location, commands, gdb_env(), core_of_stop(backend, tmp_path)) == gdb


def _mi_values(argv: list[str], program: Path, expressions: list[str]) -> list[str]:
    lines = [f"-break-insert {LOCATION}", "-exec-run"]
    lines += [f"-data-evaluate-expression {mi_quote(e)}" for e in expressions]
    lines.append("-gdb-exit")
    done = subprocess.run([*argv, "-nx", "-q", "-i=mi", str(program)], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=120, env=gdb_env())  # fmt: skip
    out = []
    for line in done.stdout.splitlines():
        if line.startswith(("^done,value=", "^error")):
            record = parse_record(line)
            value = record.results.get("value")
            out.append(str(value if value is not None else record.results.get("msg")))
    return out


MI_EXPRESSIONS = ["v[1]", "v.size()", "up->name", "*sp", "arr.at(3)", "dq[2]", "plain.area()"]


def test_mi_data_evaluate_expression_matches_gdb(program: Path, expected: list[str]) -> None:
    gdb = _mi_values([str(gdb_path())], program, MI_EXPRESSIONS)
    assert gdb[:2] == ["20", "3"]
    ours = _mi_values([sys.executable, "-m", "aliceserver"], program, MI_EXPRESSIONS)
    assert list(zip(MI_EXPRESSIONS, ours, strict=True)) == list(zip(MI_EXPRESSIONS, gdb, strict=True))


def test_dap_evaluate(program: Path, expected: list[str]) -> None:
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, program, breakpoints={SOURCE: [LINE]})
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]

        def evaluate(expression: str) -> str:
            body = client.call("evaluate", {"expression": expression, "frameId": frame, "context": "watch"})
            return str(body["result"])

        assert evaluate("v[1]") == "20"
        assert evaluate("v.size()") == "3"
        assert evaluate("up->name") == '"seven"'
        assert evaluate("sp->w + arr.at(3)") == "12"
        failed = client.request("evaluate", {"expression": "plain.area()", "frameId": frame, "context": "watch"})
        assert not failed["success"]
        assert "Cannot evaluate function -- may be inlined" in str(failed.get("message"))
