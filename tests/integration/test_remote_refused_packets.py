"""Optional packets a stub answers empty (it does not know them) are not sent again on that
connection, as gdb's packet configs go from auto to disabled at the first empty reply: a
refused `P` makes every later register write a `G`, a refused `Z2` is not asked again at
each resume (gdb's remote_insert_watchpoint fails at once). Counted through a proxy that
turns the packet into one gdbserver does not know, ours against gdb 13 over the same stub."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.integration.test_remote_session import _normalized
from tests.support.batch import ex, needs_gdb, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.gdb_xstate import gdbserver_could_not_write
from tests.support.gdbserver import gdbserver
from tests.support.rsp_proxy import checksummed, rsp_proxy

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def _unknown(prefix: bytes) -> Callable[[bytes], bytes]:
    """Packets starting with `prefix` turned into one gdbserver answers empty."""
    return lambda unit: checksummed(b"vNoSuchPacket") if unit.startswith(b"$" + prefix) else unit


def _counted(program: Path, commands: Sequence[str], cwd: Path, refused: bytes, counted: Sequence[bytes],
             kept: list[tuple[bytes, bool]] | None = None) -> list[tuple[str, dict[bytes, int]]]:  # fmt: skip
    """gdb's then our output and how many packets of each `counted` kind we sent; `kept`
    gets, for each, all it sent and whether gdbserver could not store XSAVE registers."""
    said = []
    for run in (theirs, ours):
        with gdbserver(program) as server, rsp_proxy(server.address, to_stub=_unknown(refused)) as proxy:
            lines = ["set sysroot /", *(c.replace("{target}", proxy.address) for c in commands)]
            done = run(["-batch", "-nx", *ex(*lines), str(program)], cwd)
            sent = bytes(proxy.from_client)
            if kept is not None:
                kept.append((sent, gdbserver_could_not_write(server)))
            said.append((_normalized(done.stdout + "\n--stderr--\n" + done.stderr),
                         {kind: sent.count(b"$" + kind) for kind in counted}))  # fmt: skip
    return said


def test_a_refused_p_is_not_sent_again_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("registers_expr")
    line = marker_line("registers_expr.c", "callee")
    commands = ["target remote {target}", f"break registers_expr.c:{line}", "continue",
                "set $rax = 77", "set $rbx = 5", "set $rcx = 6", "set $rdx = 7",
                "p $rax", "p $rbx", "p $rcx", "p $rdx", "stepi", "p $rbx", "kill"]  # fmt: skip
    (gdb, gdb_sent), (alice, alice_sent) = _counted(program, commands, tmp_path, b"P", [b"P", b"G"])
    assert alice == gdb
    assert "$1 = 77" in alice and "$5 = 5" in alice
    assert gdb_sent[b"P"] == 1 and alice_sent[b"P"] == 1  # then G for each write
    assert alice_sent[b"G"] == gdb_sent[b"G"] == 4


def test_a_refused_z2_is_not_sent_again_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("watch")
    line = marker_line("watch.c", "counter")
    commands = ["target remote {target}", f"break watch.c:{line}", "continue",
                "watch global_counter", "continue", "continue", "continue", "delete", "kill"]  # fmt: skip
    (gdb, gdb_sent), (alice, alice_sent) = _counted(program, commands, tmp_path, b"Z2", [b"Z2"])
    assert alice == gdb
    assert alice.count("Could not insert hardware watchpoint 2.") == 3
    assert gdb_sent[b"Z2"] == 1 and alice_sent[b"Z2"] == 1


def test_a_vector_register_is_written_back_in_one_g_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """A zmm register is three of the description's (xmmN, ymmNh, zmmNh): without `P`, gdb
    writes them back in one `G`, as each value written."""
    if "avx512f" not in Path("/proc/cpuinfo").read_text():
        pytest.skip("this machine has no AVX-512: gdbserver describes no zmm")
    program = builder.build("registers_expr")
    line = marker_line("registers_expr.c", "callee")
    commands = ["target remote {target}", f"break registers_expr.c:{line}", "continue", "set $rax = 77",
                "set $zmm3.v8_int64[6] = 66", "set $ymm2.v4_int64[3] = 5", "p $zmm3.v8_int64", "p $ymm2.v4_int64",
                "stepi", "p $zmm3.v8_int64[6]", "kill"]  # fmt: skip
    kept: list[tuple[bytes, bool]] = []
    (gdb, gdb_sent), (alice, alice_sent) = _counted(program, commands, tmp_path, b"P", [b"P", b"G"], kept)
    assert alice == gdb
    assert "$1 = {" in alice and ", 66, 0}" in alice and "$2 = {" in alice and ", 5}" in alice
    if kept[0][1] or kept[1][1]:  # gdbserver 13 cannot store them here: what we sent is gdb's G
        writes = [re.findall(rb"\$G([0-9a-f]+)#", sent) for sent, _ in kept]
        assert len(writes[1]) == 3 and writes[1] == writes[0]
        assert (66).to_bytes(8, "little").hex().encode() in writes[1][1]
    else:
        assert "$3 = 66" in alice
    assert alice_sent == gdb_sent == {b"P": 1, b"G": 3}
