"""aarch64 registers under qemu-user's stub as gdb-multiarch shows them over the same kind of
stub: gdb's numbers (the description's raw registers, then the q, d, s, h, b views, v0-v31
where SVE's z registers hold them, w0-w30), `info all-registers` and each group in gdb's
order, and the values of registers typed by the description (SVE's z unions, qemu's own v
union without SVE, its system registers). qemu's SVE predicates (p0-p15, ffr) are 32-byte
registers its description types as 256 bytes, which gdb prints from beyond them: they are
compared by name alone, and show `<unavailable>` here. Without SVE qemu runs as a
Cortex-A72 (QEMU_CPU)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.qemu import both_batches, build

pytestmark = [needs_gdb, pytest.mark.timeout(300)]
LISTINGS = ("info all-registers", "info registers", "info registers vector", "info registers float",
            "info registers system", "info registers cp_regs", "info registers pc w0 q0 v0 SCTLR $x1 lr",
            "info registers nosuch")  # fmt: skip
# Registers whose values do not change from run to run (x5 holds a random canary, the
# pointer-authentication keys are random, p0-p15 and ffr see above)
STEADY = "pc cpsr q0 d0 s0 h0 b0 v0 w0 x0 fpsr fpcr ID_MMFR5 MIDR_EL1 SCTLR"


def _mi(command: str) -> str:
    return f'interpreter-exec mi "{command}"'


def _names(text: str) -> list[list[str]]:
    """The registers each listing names (the first word of its lines), listing by listing."""
    listings: list[list[str]] = []
    for line in text.split("--stderr--")[0].splitlines():
        if line == "=====":
            listings.append([])
        elif listings and line and not line.startswith("^"):
            listings[-1].append(line.split()[0])
    return listings


@pytest.mark.parametrize("cpu", ["max", "cortex-a72"])
def test_register_numbers_and_listings_like_gdb_multiarch(
    cpu: str, builder: Builder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QEMU_CPU", cpu)
    program = build(builder, "registers_expr", "-O0")
    commands = ["break callee", "continue", _mi("-data-list-register-names")]
    for listing in LISTINGS:
        commands += ["echo =====\\n", listing]
    gdb, alice = both_batches(program, commands, tmp_path)
    names = "register-names=["
    assert alice.split(names)[1].split("]")[0] == gdb.split(names)[1].split("]")[0]
    assert _names(alice) == _names(gdb)
    assert alice.split("--stderr--")[1] == gdb.split("--stderr--")[1]  # Invalid register `nosuch'
    assert '"b31","v0"' in alice if cpu == "max" else '"b31","w0"' in alice


def test_described_register_values_like_gdb_multiarch(builder: Builder, tmp_path: Path) -> None:
    program = build(builder, "registers_expr", "-O0")
    numbers = "0 32 33 34 66 67 85 86 277 309 341 373 405 437 469"
    gdb, alice = both_batches(program, [
        "break callee", "continue", f"info registers {STEADY} vg", "p $z0", "ptype $z0", "whatis $z0", "p/x $vg",
        "ptype $ID_MMFR5", "p $v0", "ptype $v0", _mi(f"-data-list-register-values x {numbers}"),
        _mi(f"-data-list-register-values N {numbers}"),
    ], tmp_path)  # fmt: skip
    assert alice == gdb
    assert (
        "type = union svev {" in alice
        and "q0             {u = 0x0, s = 0x0}  {u = 0, s = 0}" in alice
    )


def test_qemu_v_union_without_sve_like_gdb_multiarch(
    builder: Builder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without SVE v0-v31 are raw registers of qemu's own union (no bfloat16 nor half views
    of its h lanes), shown in hex alone as a vector."""
    monkeypatch.setenv("QEMU_CPU", "cortex-a72")
    program = build(builder, "registers_expr", "-O0")
    gdb, alice = both_batches(program, [
        "break callee", "continue", f"info registers {STEADY}", "p $v0", "ptype $v0", "whatis $v0",
        _mi("-data-list-register-values x 34 66 67 68 200"),
    ], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "h = {u = {0, 0, 0, 0, 0, 0, 0, 0}, s = " in alice


@pytest.mark.parametrize("cpu", ["max", "cortex-a72"])
def test_register_writes_read_back_like_gdb_multiarch(
    cpu: str, builder: Builder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writes to x, w (zero-extended into x), v and its lane views, fpcr, and with SVE the
    z registers; -data-write-register-values sign-extends over a whole register."""
    monkeypatch.setenv("QEMU_CPU", cpu)
    program = build(builder, "registers_expr", "-O0")
    sve = ["set $z3.d.u[1] = 4", "p $z3.d.u[1]", "p $v3.d.u[1]"] if cpu == "max" else []
    gdb, alice = both_batches(program, [
        "break callee", "continue", "set $x0 = 5", "p $x0", "set $v0.d.u[0] = 3", "p $v0.d.u[0]", "set $q1.u = 7",
        "p $q1", "set $d2.f = 1.5", "p $d2.f", "set $w1 = -1", "p $x1", "set $fpcr = 0x2000000", "p $fpcr", *sve,
        _mi("-data-write-register-values x 0 9 34 -1"), "p $x0", "p $v0.d.u", "p $w0",
    ], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "= {u = 7, s = 7}" in alice and "= 4294967295" in alice
    assert "= {18446744073709551615, 18446744073709551615}" in alice
