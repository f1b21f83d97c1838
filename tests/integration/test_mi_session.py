"""The MI front end end to end: `python -m aliceserver -i=mi PROG` on a real program.

Every line the server prints passes the strict grammar check (tests/support/mi_grammar.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import PROMPT, List, Tuple, parse_record

PROGRAM_OUTPUT = ("total=100 x=4 y=6 name=origin", 'say "hi"', "\tgrüß")
SOURCE = "mi_prog.c"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("mi_prog")


@pytest.fixture
def mi(prog: Path) -> Iterator[MiClient]:
    client = MiClient(["-i=mi", "-q", str(prog)], cwd=prog.parent)
    client.prompt()
    yield client
    assert client.close() == 0
    client.check(PROGRAM_OUTPUT)


def line(name: str) -> int:
    return marker_line(SOURCE, name)


def test_startup_like_gdb(prog: Path) -> None:
    client = MiClient(["--interpreter=mi2", str(prog)], cwd=prog.parent)
    lines = client.prompt()
    assert lines[0] == '=thread-group-added,id="i1"'
    assert lines[1].startswith('~"GNU gdb (aliceserver')
    assert lines[-2] == f'~"Reading symbols from {prog}...\\n"'
    assert lines[-1] == PROMPT
    features = client.ok("-list-features").results["features"]
    assert isinstance(features, List) and "breakpoint-notifications" in features.values
    assert client.ok("-gdb-show prompt").results["value"] == "(gdb) "
    assert client.close() == 0
    client.check()


def test_break_run_step_finish_exit(mi: MiClient) -> None:
    bkpt = mi.ok(f"-break-insert {SOURCE}:{line('loop')}").results["bkpt"]
    assert isinstance(bkpt, Tuple)
    assert bkpt["line"] == str(line("loop")) and bkpt["func"] == "main"
    assert str(bkpt["fullname"]).endswith(SOURCE)
    mi.ok("-break-insert add")
    result, seen = mi.command("-exec-run")
    assert result.cls == "running"
    assert seen[-2] == '*running,thread-id="all"'
    assert any(s.startswith('=thread-group-started,id="i1",pid=') for s in seen)
    assert '=thread-created,id="1",group-id="i1"' in seen
    stop = mi.stopped()
    assert stop.results["reason"] == "breakpoint-hit" and stop.results["bkptno"] == "1"
    frame = stop.results["frame"]
    assert isinstance(frame, Tuple) and frame["line"] == str(line("loop"))
    assert frame["arch"] == "i386:x86-64"
    assert stop.results["thread-id"] == "1" and stop.results["stopped-threads"] == "all"
    mi.prompt()  # sync mode: a prompt follows *stopped
    info = mi.ok("-stack-info-frame").results["frame"]
    assert isinstance(info, Tuple) and info["level"] == "0" and info["func"] == "main"
    mi.ok("-break-disable 2")
    mi.ok("-exec-step")
    stop = mi.stopped()
    assert stop.results["reason"] == "end-stepping-range"
    frame = stop.results["frame"]
    assert isinstance(frame, Tuple) and frame["func"] == "add" and frame["line"] == str(line("add_body"))
    mi.prompt()
    stack = mi.ok("-stack-list-frames").results["stack"]
    assert isinstance(stack, List) and stack.keys == ["frame", "frame"]
    mi.ok("-exec-next")
    assert mi.stopped().results["reason"] == "end-stepping-range"
    mi.prompt()
    mi.ok("-exec-finish")
    stop = mi.stopped()
    assert stop.results["reason"] == "function-finished"
    assert stop.results["gdb-result-var"] == "$1" and stop.results["return-value"] == "10"
    mi.prompt()
    mi.ok("-break-delete 1")
    mi.ok(f"-exec-until {SOURCE}:{line('print')}")
    stop = mi.stopped()
    assert stop.results["reason"] == "location-reached"
    mi.prompt()
    mi.ok("-exec-continue")
    lines = mi.read_until(lambda text: text.startswith("*stopped"))
    assert lines[-1] == '*stopped,reason="exited-normally"'
    assert '=thread-group-exited,id="i1",exit-code="0"' in lines
    assert any(text.startswith('~"[Inferior 1 (process ') and "exited normally" in text for text in lines)
    mi.prompt()
    assert mi.error("-exec-continue") == "The program is not being run."


def test_exit_code_in_octal(mi: MiClient) -> None:
    mi.ok("-exec-arguments x y z")
    mi.ok("-exec-run")
    lines = mi.read_until(lambda text: text.startswith("*stopped"))
    assert lines[-1] == '*stopped,reason="exited",exit-code="03"'
    assert '=thread-group-exited,id="i1",exit-code="03"' in lines
    mi.prompt()


def test_stack_variables_and_escapes(mi: MiClient) -> None:
    mi.ok(f"-break-insert {SOURCE}:{line('after_loop')}")
    mi.ok("-exec-run")
    mi.stopped()
    mi.prompt()
    _, seen = mi.command("-stack-list-locals --simple-values")
    assert '{name="total",type="int",value="100"}' in seen[0]
    assert '{name="arr",type="int [4]"}' in seen[0]
    assert r'value="0x' in seen[0] and r'\"say \\\"hi\\\"\\n\\tgr\303\274\303\237\""' in seen[0]
    _, seen = mi.command("-stack-list-locals 0")
    assert 'name="total"' in seen[0] and "{name=" not in seen[0]
    _, seen = mi.command("-stack-list-variables --all-values")
    assert '{name="argc",arg="1",value="1"}' in seen[0]
    # All values: aggregates too (simple values leave them out, and the engine skips them).
    assert '{name="arr",value="{10, 20, 30, 40}"}' in seen[0]
    assert '{name="pt",value="{x = 1, y = 2, name = 0x' in seen[0]
    _, seen = mi.command("-stack-list-variables --simple-values")
    assert '{name="arr",type="int [4]"}' in seen[0] and '{name="pt",type="struct point"}' in seen[0]
    _, seen = mi.command("-stack-list-variables --all-values")  # asked again at the same stop
    assert '{name="arr",value="{10, 20, 30, 40}"}' in seen[0]
    mi.ok('-data-evaluate-expression "arr[1] = 21"')  # a write: values listed again are new
    _, seen = mi.command("-stack-list-variables --all-values")
    assert '{name="arr",value="{10, 21, 30, 40}"}' in seen[0]
    mi.ok('-data-evaluate-expression "arr[1] = 20"')
    assert mi.ok("-data-evaluate-expression total").results["value"] == "100"
    assert mi.ok('-data-evaluate-expression "total * 2 + 1"').results["value"] == "201"
    assert mi.ok("-data-evaluate-expression pt").results["value"] == '{x = 1, y = 2, name = 0x555555556004 "origin"}' \
        or "origin" in str(mi.ok("-data-evaluate-expression pt").results["value"])
    assert mi.error("-data-evaluate-expression nosuchvar") == 'No symbol "nosuchvar" in current context.'
    args = mi.ok("-stack-list-arguments --simple-values").results["stack-args"]
    assert isinstance(args, List) and args.keys == ["frame"]


def test_varobjs(mi: MiClient) -> None:
    mi.ok(f"-break-insert {SOURCE}:{line('after_loop')}")
    mi.ok("-exec-run")
    mi.stopped()
    mi.prompt()
    var = mi.ok("-var-create - * pt").results
    assert var["name"] == "var1" and var["numchild"] == "3" and var["value"] == "{...}"
    assert var["type"] == "struct point"
    children = mi.ok("-var-list-children --all-values var1").results["children"]
    assert isinstance(children, List) and children.keys == ["child", "child", "child"]
    first = children.values[0]
    assert isinstance(first, Tuple) and first["name"] == "var1.x" and first["exp"] == "x" and first["value"] == "1"
    arr = mi.ok("-var-create - * arr").results
    assert arr["value"] == "[4]" and arr["numchild"] == "4"
    items = mi.ok("-var-list-children --all-values var2").results["children"]
    assert isinstance(items, List) and isinstance(items.values[2], Tuple) and items.values[2]["exp"] == "2"
    total = mi.ok("-var-create t @ total").results
    assert total["value"] == "100"
    assert mi.ok("-var-set-format var1.x hexadecimal").results["value"] == "0x1"
    assert mi.ok("-var-info-path-expression var1.x").results["path_expr"] == "(pt).x"
    assert mi.ok("-var-assign t 42").results["value"] == "42"
    mi.ok("-exec-step")  # into move()
    mi.stopped()
    mi.prompt()
    changes = mi.ok("-var-update --all-values *").results["changelist"]
    assert isinstance(changes, List)
    out = [c for c in changes.values if isinstance(c, Tuple) and c["name"] == "t"]
    assert out and out[0]["in_scope"] == "false"
    mi.ok("-exec-finish")
    mi.stopped()
    mi.prompt()
    changes = mi.ok("-var-update --all-values *").results["changelist"]
    assert isinstance(changes, List)
    names = {c["name"]: c for c in changes.values if isinstance(c, Tuple)}
    assert names["var1.x"]["value"] == "0x4" and names["t"]["in_scope"] == "true"
    assert mi.ok("-var-delete var1").results["ndeleted"] == "4"
    assert mi.error("-var-list-children var1") == "Variable object not found"
    assert mi.error("-var-create - * nosuchvar") == "-var-create: unable to create variable object"


def test_disassemble_memory_registers(mi: MiClient) -> None:
    mi.ok("-break-insert add")
    mi.ok("-exec-run")
    mi.stopped()
    mi.prompt()
    insns = mi.ok('-data-disassemble -s $pc -e "$pc + 12" -- 0').results["asm_insns"]
    assert isinstance(insns, List) and insns.values
    first = insns.values[0]
    assert isinstance(first, Tuple) and first["func-name"] == "add" and "(%rbp)" in str(first["inst"])
    grouped = mi.ok(f"-data-disassemble -f {SOURCE} -l {line('add_body')} -n -1 -- 1").results["asm_insns"]
    assert isinstance(grouped, List) and set(grouped.keys or []) == {"src_and_asm_line"}
    # -n N: as gdb, the first N instructions of the function holding the line, not the line's
    few = mi.ok(f"-data-disassemble -f {SOURCE} -l {line('add_return')} -n 2 -- 0").results["asm_insns"]
    assert isinstance(few, List) and [i["offset"] for i in few.values if isinstance(i, Tuple)] == ["0", "1"]
    whole = mi.ok("-data-disassemble -a add -- 2").results["asm_insns"]
    assert isinstance(whole, List) and isinstance(whole.values[0], Tuple) and whole.values[0]["offset"] == "0"
    assert "opcodes" in dict(whole.values[0].items)
    memory = mi.ok("-data-read-memory-bytes &a 4").results["memory"]
    assert isinstance(memory, List) and isinstance(memory.values[0], Tuple)
    assert memory.values[0]["contents"] == "00000000"  # a == 0 at the first call
    words = mi.ok('-data-read-memory "&b" x 4 1 1').results["memory"]
    assert isinstance(words, List) and isinstance(words.values[0], Tuple)
    assert words.values[0]["data"] == List(["0x0000000a"])
    assert mi.error("-data-read-memory-bytes 0 4") == "Unable to read memory."
    names = mi.ok("-data-list-register-names").results["register-names"]
    assert isinstance(names, List) and names.values[:3] == ["rax", "rbx", "rcx"] and names.values[16] == "rip"
    values = mi.ok("-data-list-register-values x 16").results["register-values"]
    assert isinstance(values, List) and isinstance(values.values[0], Tuple)
    assert values.values[0]["number"] == "16" and str(values.values[0]["value"]).startswith("0x")
    mi.ok("-data-list-changed-registers")
    mi.ok("-exec-next")
    mi.stopped()
    mi.prompt()
    changed = mi.ok("-data-list-changed-registers").results["changed-registers"]
    assert isinstance(changed, List) and "16" in changed.values
    _, seen = mi.command("disassemble $pc", token=False)
    assert seen[0] == '&"disassemble $pc\\n"'
    assert seen[1] == '~"Dump of assembler code for function add:\\n"'
    assert any(s.startswith('~"=> 0x') for s in seen)


def test_errors_keep_the_session(mi: MiClient) -> None:
    result, seen = mi.command("-no-such-command")
    assert seen[0].endswith('^error,msg="Undefined MI command: no-such-command",code="undefined-command"')
    assert mi.error('-data-evaluate-expression "unterminated').startswith("Problem parsing arguments")
    assert mi.error("-break-insert --foo main") == "-break-insert: Unknown option ``-foo''"
    assert mi.error("-break-insert") == "-break-insert: Missing <location>"
    assert mi.error("-break-insert nosuchfunc") == 'Function "nosuchfunc" not defined.'
    assert mi.error("-exec-next") == "The program is not being run."
    assert mi.error("-stack-list-frames") == "No registers."
    assert mi.error("-gdb-set non-stop 1") == 'No symbol "non-stop" in current context.'
    assert mi.error("-gdb-show nosuchsetting").startswith("Undefined show command")
    _, seen = mi.command("nosuchclicommand", token=False)
    assert seen[0] == '&"nosuchclicommand\\n"'
    assert seen[-2] == '^error,msg="Undefined command: \\"nosuchclicommand\\".  Try \\"help\\"."'
    _, seen = mi.command("-break-insert -f nosuchfunc")
    assert seen[0] == '&"Function \\"nosuchfunc\\" not defined.\\n"'
    assert 'addr="<PENDING>",pending="nosuchfunc"' in seen[1]
    mi.send("\x01\x02garbage \xff\"")
    mi.prompt()
    assert mi.ok("-data-evaluate-expression 1+2").results["value"] == "3"


def test_console_commands_on_mi(mi: MiClient) -> None:
    _, seen = mi.command(f'-interpreter-exec console "break {SOURCE}:{line("add_return")}"')
    assert seen[0].startswith('~"Breakpoint 1 at 0x')
    assert seen[1].startswith('=breakpoint-created,bkpt={number="1"')
    _, seen = mi.command('-interpreter-exec console "run"')
    stop = mi.stopped()
    assert stop.results["reason"] == "breakpoint-hit"
    mi.prompt()
    _, seen = mi.command('-interpreter-exec console "up"')
    assert seen[0].startswith('~"#1  0x') and " in main (" in seen[0]
    assert any(s.startswith('=thread-selected,id="1",frame={level="1"') for s in seen)
    # As gdb: `frame` of the frame selected already prints it and notifies no one.
    for again in ("frame", "frame 1"):
        _, seen = mi.command(f'-interpreter-exec console "{again}"')
        assert seen[0].startswith('~"#1  0x') and not any("thread-selected" in s for s in seen)
    _, seen = mi.command('-interpreter-exec console "print/x total"')
    assert seen[0] == '~"$1 = 0x0\\n"'
    _, seen = mi.command('-interpreter-exec console "bt"')
    assert seen[0].startswith('~"#0  add (a=0, b=10) at')
    _, seen = mi.command("echo a\\033b\\n", token=False)
    assert seen[1] == '~"a\\033b\\n"'
    _, seen = mi.command('-interpreter-exec console "info breakpoints"')
    assert seen[0] == '~"Num     Type           Disp Enb Address            What\\n"'
    _, seen = mi.command('-interpreter-exec console "next"')
    assert seen[-3:-1] == ["^running", '*running,thread-id="all"'] or "^running" in seen[-3]
    lines = mi.read_until(lambda text: text.startswith("*stopped"))
    assert any(text.startswith('~"') for text in lines)  # a console command prints its stop
    mi.prompt()
    _, seen = mi.command('-interpreter-exec console "kill"')
    assert any("killed]" in s for s in seen)


def test_mi_async_prompts(prog: Path) -> None:
    client = MiClient(["-i=mi", "-q", "-iex", "set mi-async on", str(prog)], cwd=prog.parent)
    lines = client.prompt()
    assert lines[1] == '=cmd-param-changed,param="mi-async",value="on"'
    assert client.ok("-gdb-show mi-async").results["value"] == "on"
    client.ok("-break-insert add")
    assert client.ok("-list-target-features").results["features"] == List()
    client.ok("-exec-run")
    client.stopped()
    # mi-async on: no prompt after *stopped; the next line answers the next command.
    features = client.ok("-list-target-features").results["features"]
    assert features == List(["async"])
    assert client.lines[-3].startswith("*stopped") or client.lines[-3].startswith("=")
    assert client.close() == 0
    client.check(PROGRAM_OUTPUT)


def test_emacs_style_init(prog: Path) -> None:
    client = MiClient(["-i=mi", str(prog)], cwd=prog.parent)
    client.prompt()
    client.ok("1-gdb-set height 0", token=False)
    assert client.error("2-gdb-set non-stop 1", token=False) == 'No symbol "non-stop" in current context.'
    for command in ("3-enable-pretty-printing", "4-enable-frame-filters", "5-file-list-exec-source-files",
                    "7-gdb-show prompt", "9-thread-info", "10-break-list", "11-gdb-set target-async 1",
                    "12-list-target-features", "13-gdb-set non-stop 0"):
        result, seen = client.command(command, token=False)
        assert seen[-2].startswith(command.split("-")[0] + "^"), seen
    source = client.ok("6-file-list-exec-source-file", token=False).results
    assert str(source["fullname"]).endswith(SOURCE)
    assert client.error("8-stack-info-frame", token=False) == "No registers."
    client.ok(f"14-break-insert {SOURCE}:{line('loop')}", token=False)
    client.ok("15-exec-run", token=False)
    client.stopped()
    frame = client.ok("16-stack-info-frame --thread 1", token=False).results["frame"]
    assert isinstance(frame, Tuple) and frame["line"] == str(line("loop"))
    client.ok("17-exec-next 1", token=False)
    client.stopped()
    client.ok("18-exec-continue ", token=False)
    client.stopped()
    assert client.close() == 0
    client.check(PROGRAM_OUTPUT)


def test_program_output_between_records(mi: MiClient) -> None:
    mi.ok("-exec-run")
    lines = mi.read_until(lambda text: text.startswith("*stopped"))
    for text in PROGRAM_OUTPUT:
        assert text in lines
    mi.prompt()


def test_unknown_flag_is_refused_like_gdb(tmp_path: Path) -> None:
    client = MiClient(["-i=mi", "--no-such-flag"], cwd=tmp_path)
    assert client.close() == 1
    assert b"unrecognized option '--no-such-flag'" in client.stderr


def test_version_flag(tmp_path: Path) -> None:
    client = MiClient(["-i=mi", "--version"], cwd=tmp_path)
    assert client.close() == 0
    assert client.lines[0].startswith("GNU gdb (aliceserver")


def test_record_shapes_match_gdb(prog: Path) -> None:
    """The same session under gdb and under aliceserver: the same keys in the same order."""
    import shutil

    if shutil.which("gdb") is None:
        pytest.skip("gdb is not installed: nothing to compare with")
    shapes = []
    for gdb in (True, False):
        client = MiClient(["-i=mi", "-q", "-nx", str(prog)], cwd=prog.parent, gdb=gdb)
        client.prompt()
        records = [client.ok(f"-break-insert {SOURCE}:{line('loop')}")]
        client.ok("-exec-run")
        records.append(client.stopped())
        client.prompt()
        records.append(client.ok("-stack-info-frame"))
        records.append(client.ok("-stack-list-frames"))
        client.ok("-exec-step")
        records.append(client.stopped())
        client.prompt()
        client.ok("-exec-finish")
        records.append(client.stopped())
        client.close()
        shapes.append([_shape(r.results) for r in records])
    for ours, theirs in zip(shapes[1], shapes[0], strict=True):
        assert ours == [k for k in theirs if k not in ("core",)], (ours, theirs)


def _shape(results: Tuple) -> list[str]:
    keys = []
    for key, value in results.items:
        keys.append(key)
        if isinstance(value, Tuple):
            keys += [f"{key}.{k}" for k, _ in value.items]
    return [k for k in keys if k != "core"]


def test_parse_record_accepts_our_prompt() -> None:
    assert parse_record(PROMPT).kind == "prompt"


def test_inferior_tty_gets_the_program_output(prog: Path) -> None:
    import os
    import pty
    import select

    master, slave = pty.openpty()
    client = MiClient(["-i=mi", "-q", str(prog)], cwd=prog.parent)
    try:
        client.prompt()
        client.ok(f"-inferior-tty-set {os.ttyname(slave)}")
        assert client.ok("-inferior-tty-show").results["inferior_tty_terminal"] == os.ttyname(slave)
        client.ok("-exec-run")
        lines = client.read_until(lambda text: text.startswith("*stopped"))
        assert not any("total=100" in text for text in lines)  # not between the records
        data = b""
        while b"gr" not in data:
            ready, _, _ = select.select([master], [], [], 60)
            assert ready, data
            data += os.read(master, 4096)
        assert b"total=100 x=4 y=6 name=origin\r\n" in data
        client.prompt()
    finally:
        assert client.close() == 0
        os.close(master)
        os.close(slave)
    client.check()


def test_attach_and_detach(builder: Builder, tmp_path: Path) -> None:
    import subprocess

    spin = builder.build("spin")
    target = subprocess.Popen([str(spin)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = MiClient(["-i=mi", "-q"], cwd=tmp_path)
    try:
        client.prompt()
        _, seen = client.command(f"-target-attach {target.pid}")
        stop = client.stopped()
        assert "frame" in dict(stop.results.items)
        frames = client.ok("-stack-list-frames").results["stack"]
        assert isinstance(frames, List) and frames.values
        _, seen = client.command("-target-detach")
        assert any(f"(process {target.pid}) detached]" in text for text in seen)
        assert '=thread-group-exited,id="i1"' in seen
        assert target.poll() is None  # detached, still running
    finally:
        assert client.close() == 0
        target.kill()
        target.wait()
    client.check()


def test_watchpoint_set_before_the_program_runs(mi: MiClient) -> None:
    """As gdb: a watchpoint on a global before `run` is set when the program starts, and
    again at the next run; an unknown name is refused at once."""
    assert mi.ok("-break-watch counter").results["wpt"] == Tuple([("number", "1"), ("exp", "counter")])
    assert mi.error("-break-watch nosuch") == 'No symbol "nosuch" in current context.'
    for _ in range(2):
        mi.ok("-exec-run")
        stop = mi.stopped()
        assert stop.results["reason"] == "watchpoint-trigger"
        assert stop.results["value"] == Tuple([("old", "5"), ("new", "6")])
        mi.prompt()
        mi.ok("-exec-continue")
        assert mi.stopped().results["reason"] == "exited-normally"
        mi.prompt()


def test_a_symbol_load_prints_nothing_on_mi(prog: Path, tmp_path: Path) -> None:
    """Building the program's index (none cached) says nothing on an MI channel: gdb has
    no such line, and the load's events arrive after the command's reply and prompt, where
    a line breaks clients that match the output exactly (gdb's testsuite does)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    client = MiClient(["-i=mi", "-q", str(prog)], cwd=prog.parent, env=env)
    try:
        client.prompt()
        client.ok(f"-break-insert {SOURCE}:{line('loop')}")
        client.ok("-gdb-show version")  # the load's events, if any, are handled by its reply
        assert any(tmp_path.rglob("*")), "no index was built: nothing was loaded"
        assert [text for text in client.lines if "Loading debug info" in text] == [], client.lines
    finally:
        assert client.close() == 0
        client.check()
