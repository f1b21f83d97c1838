"""aarch64 end to end through the console: `aliceserver -batch` and gdb-multiarch each
debug a cross-compiled program under a qemu-aarch64 stub of their own (`set sysroot` to the
cross libc, `target remote`), and print the same: the first stop in the dynamic loader read
from the sysroot, breakpoints, backtraces, locals, steps, disassembly in binutils'
spelling, registers by aarch64's names, finish with its value, the libraries and the sysroot
setting. Only the stub's port and qemu's thread id (its host tid) are normalised."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, ours
from tests.support.build import Builder
from tests.support.mi_client import MiClient
from tests.support.qemu import SYSROOT, both_batches, cross_builder, normalized, qemu_stub, tool
from tests.support.rsp_proxy import rsp_proxy

pytestmark = pytest.mark.timeout(300)

PROGRAM = "aarch64_frames"


@pytest.fixture
def dynamic(builder: Builder) -> Path:
    """Linked against the cross libc: its loader and libc come from the sysroot."""
    return cross_builder(builder).build(PROGRAM, ("-g", "-O0"))


def test_break_step_examine_finish_like_gdb_multiarch(dynamic: Path, tmp_path: Path) -> None:
    gdb, alice = both_batches(dynamic, ["break leaf", "continue", "bt", "info locals", "next", "x/3i $pc",
                                        "info registers x0 pc", "finish"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "from /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1" in alice
    assert "\nBreakpoint 1, leaf (x=0, y=2)" in alice and "Value returned is $1 = 3" in alice


def test_sysroot_names_the_libraries_like_gdb_multiarch(dynamic: Path, tmp_path: Path) -> None:
    gdb, alice = both_batches(dynamic, ["show sysroot", "info sharedlibrary", "break middle", "continue",
                                        "info sharedlibrary", "info frame", "info registers x0 x29 x30 sp pc cpsr fpsr fpcr w1 lr",
                                        "up", "info frame", "info registers pc sp x30", "info threads",
                                        'interpreter-exec mi "-thread-info"', "thread"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert f"{SYSROOT}/lib/libc.so.6" in alice
    assert "* 1    Thread 1.T (CPU#0 [running]) middle" in alice  # qemu's qThreadExtraInfo


def test_mi_frames_and_registers_like_gdb_multiarch(dynamic: Path, tmp_path: Path) -> None:
    """MI's frame tuples say arch="aarch64"; registers by gdb's aarch64 numbers (the core
    feature's 0-33, SVE's z 34-65 under qemu, fpsr 66 and fpcr 67, then the rest of the
    stub's description: SVE's predicates, vg, qemu's system registers)."""
    numbers = "0 1 29 30 31 32 33 66 67 85 86 87"
    gdb, alice = both_batches(dynamic, ["break leaf", "continue", 'interpreter-exec mi "-stack-list-frames"',
                                        f'interpreter-exec mi "-data-list-register-names {numbers}"',
                                        f'interpreter-exec mi "-data-list-register-values x {numbers}"',
                                        f'interpreter-exec mi "-data-list-register-values N {numbers}"',
                                        'interpreter-exec mi "-stack-info-frame"'], tmp_path)  # fmt: skip
    assert alice == gdb
    assert 'arch="aarch64"' in alice and '"fpsr","fpcr","vg","ID_MMFR5"' in alice
    gdb, alice = both_batches(dynamic, ["break leaf", "continue", 'interpreter-exec mi "-data-list-register-names"'],
                              tmp_path)  # fmt: skip
    # gdb lists its pseudo registers (q0..., w0...) after the raw ones, which are all ours
    raw = alice.split("register-names=[")[1].split("]")[0]
    assert gdb.split("register-names=[")[1].startswith(raw) and '"z31","fpsr"' in raw


def test_simd_views_and_the_frame_base_like_gdb_multiarch(dynamic: Path, tmp_path: Path) -> None:
    """$v0 and its lane views ($q0, $d0, $s0, $h0, $b0) as gdb's unions, make_quad's float
    results left in s0-s3, and $fp as gdb's frame base in two frames."""
    gdb, alice = both_batches(dynamic, ["break leaf", "continue", "p $v0", "p $q0", "p $d0", "p $s0", "p $h0", "p $b0",
                                        "p $s3.f", "p/x $d4", "whatis $v0", "ptype $v0", "ptype $s0", "p $v32",
                                        "p $fp", "info registers fp", "up", "p $fp", "p $s0"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "$1 = {d = {f = {" in alice and "q = {u = {" in alice


def test_info_registers_lists_the_stubs_registers_like_gdb_multiarch(dynamic: Path, tmp_path: Path) -> None:
    """The general group: the core and fpu registers, then SVE's vg and qemu's system
    registers in the description's order, in two frames; pointer authentication keys
    (random in each process) are left out of the comparison."""
    gdb, alice = both_batches(dynamic, ["break leaf", "continue", "info registers", "info registers vg ID_MMFR5 x0",
                                        "up", "info registers"], tmp_path)  # fmt: skip
    keys = re.compile(r"^(AP[A-Z]+KEY(?:LO|HI)_EL1 +)\S+ +\S+$", re.MULTILINE)
    assert keys.sub(r"\1KEY", alice) == keys.sub(r"\1KEY", gdb)
    assert "\nvg             0x8                 8\nID_MMFR5 " in alice


def _mi_session(program: Path, cwd: Path, *, gdb: bool) -> list[str]:
    """An MI session over a qemu stub: connect, break, continue, step, finish,
    disassemble; every line each command brought, normalised."""
    seen: list[str] = []
    with qemu_stub(program) as stub:
        mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb, gdb_program=tool("gdb-multiarch"))
        try:
            mi.prompt()
            for command in (f"-gdb-set sysroot {SYSROOT}", f"-target-select remote {stub.address}",
                            "-break-insert leaf", "-exec-continue", "-stack-list-frames",
                            "-stack-list-variables --all-values", "-exec-next", "-exec-finish",
                            "-data-disassemble -s $pc -e $pc+8 -- 0", "-thread-info"):  # fmt: skip
                _, lines = mi.command(command)
                seen += lines
                if command.startswith("-exec"):
                    seen += mi.read_until(lambda line: line.startswith("*stopped"))
        finally:
            mi.close()
    return [normalized(line) for line in seen if line != "(gdb) "]


def test_mi_session_over_the_stub_like_gdb_multiarch(dynamic: Path, tmp_path: Path) -> None:
    """=library-loaded names each library as the target does (target-name) and the file
    read for it under the sysroot (host-name); stops, frames, variables and disassembly."""
    gdb = _mi_session(dynamic, tmp_path, gdb=True)
    alice = _mi_session(dynamic, tmp_path, gdb=False)
    assert alice == gdb
    assert ('=library-loaded,id="/lib/libc.so.6",target-name="/lib/libc.so.6",'
            f'host-name="{SYSROOT}/lib/libc.so.6"') in "\n".join(alice)
    assert any(line.startswith('*stopped,reason="function-finished"') for line in alice)


def test_show_architecture_names_the_programs_like_gdb_multiarch(dynamic: Path, tmp_path: Path) -> None:
    """auto stands for aarch64 by the program's ELF header, before and after connecting."""
    gdb, alice = both_batches(dynamic, ["show architecture"], tmp_path)
    assert alice == gdb
    assert '(currently "aarch64")' in alice
    done = ours(["-batch", "-nx", *ex("show architecture", "set architecture i386:x86-64"), str(dynamic)], tmp_path)
    assert done.stdout == 'The target architecture is set to "auto" (currently "aarch64").\n'
    # another architecture than the program's is refused, never taken and ignored
    assert done.stderr == ('The setting "architecture" is not supported by aliceserver except as auto '
                           'or aarch64.\n')


def _breakpoint_packets(program: Path, cwd: Path, *, gdb: bool) -> list[bytes]:
    """The Z0/z0 packets a session sends to a qemu stub (through a recording proxy) that
    breaks at leaf, continues to it, and deletes the breakpoint."""
    commands = ["set sysroot " + str(SYSROOT), "{target}", "break leaf", "continue", "delete", "kill"]
    with qemu_stub(program) as stub, rsp_proxy(stub.address) as proxy:
        args = ["-batch", "-nx", *ex(*(c.replace("{target}", f"target remote {proxy.address}") for c in commands)),
                str(program)]  # fmt: skip
        if gdb:
            subprocess.run([tool("gdb-multiarch"), *args], cwd=cwd, capture_output=True, timeout=120,
                           stdin=subprocess.DEVNULL)  # fmt: skip
        else:
            ours(args, cwd)
        return sorted(set(re.findall(rb"\$([zZ]0,[0-9a-f]+,[0-9a-f]+)", bytes(proxy.from_client))))


def test_breakpoint_packets_name_the_brk_kind_as_gdb_multiarch(dynamic: Path, tmp_path: Path) -> None:
    """A Z0's kind is the length of aarch64's brk (4), where the stub needs it; x86's 1 was sent."""
    gdb = _breakpoint_packets(dynamic, tmp_path, gdb=True)
    alice = _breakpoint_packets(dynamic, tmp_path, gdb=False)
    assert alice == gdb
    assert gdb and all(packet.endswith(b",4") for packet in gdb)
