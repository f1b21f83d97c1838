"""Relocated displaced instructions must do on the CPU what the originals do.

Every instruction form found at function entries and loop lines (tests/support/
instruction_forms.py) in the libc programs load, the system python3 (and its libpython when
shared) and the system's sqlite3 library (libsqlite3.so.0: building the sqlite shell as
bench/sqlite_program.py does takes too long for a test) is run twice in a traced program
(tests/support/cpu_relocation.py): its real instance at A, then relocate()'s copy at B,
up to 1 GiB away, followed by the jump back to A + len. Both runs start from the same
registers, memory and vector state; both end when pc leaves their block (the copy must
leave to A + len or to the original branch target), or on a fault. Registers, flags,
scratch memory, the stack, the thread's control block and the xsave area (less the x87
last-instruction pointer, which is the instruction's own address) must match, unless
relocate refused the form with one of the documented reasons. Memory operands are made to
point into scratch memory: base registers are set for it, and rip-relative displacements
(and rel32 branch offsets above 256 MiB) are changed in the instance, keeping its form.
The same is done with whole displaced spans (the instructions a 5-byte jump covers) that
hold something to fix up, one per sequence of forms.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from aliceserver.debuggers.ptrace.patches.relocate import RefusalKind, Unrelocatable
from tests.support.cpu_relocation import FLAGS, Machine, compare, scratch_machine
from tests.support.instruction_forms import Instance, collect, python_binaries, spans

SQLITE = Path("/usr/lib/x86_64-linux-gnu/libsqlite3.so.0")
pytestmark = [
    pytest.mark.timeout(900),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the program"),
    pytest.mark.skipif(not SQLITE.exists(), reason="the system's libsqlite3.so.0 is needed"),
]

# What relocate may refuse among single forms: instructions whose behaviour needs their own
# address (syscall's rcx, loop/jrcxz rel8) and calls that read rsp with no room to adjust.
DOCUMENTED = {RefusalKind.SHORT_ONLY, RefusalKind.OWN_ADDRESS, RefusalKind.CALL_USES_RSP,
              RefusalKind.BREAKPOINT, RefusalKind.FAR, RefusalKind.PREFIX}  # fmt: skip


def binaries(machine: Machine) -> list[Path]:
    modules = machine.debugger.modules()
    libc = [Path(m.path) for m in modules if Path(m.path).name.startswith("libc.so")]
    assert len(libc) == 1, "the program should load one libc"
    return [*libc, *python_binaries(), SQLITE]


def run_all(
    machine: Machine, instances: dict[str, Instance]
) -> tuple[list[str], dict[RefusalKind, list[str]]]:
    """Compare every instance; print the summary; the forms that matched and the refusals."""
    outcomes: Counter[str] = Counter()
    matched: list[str] = []
    faulted: list[str] = []
    refused: dict[RefusalKind, list[str]] = {}
    for form, instance in sorted(instances.items()):
        try:
            results = {compare(instance, machine, flags) for flags in FLAGS}
        except Unrelocatable as refusal:
            refused.setdefault(refusal.kind, []).append(f"{form}: {refusal.reason}")
            continue
        outcomes[" and ".join(sorted(results))] += 1
        (matched if results == {"matched"} else faulted).append(form)
    print(f"\n{len(instances)} seen: {dict(outcomes)}\nfaulted alike: {', '.join(faulted)}")
    for kind, reasons in refused.items():
        print(f"refused ({kind.value}): {len(reasons)}: " + "; ".join(reasons[:3]))
    return matched, refused


def test_relocated_forms_match_the_cpu(tmp_path: Path) -> None:
    with scratch_machine(tmp_path) as machine:
        forms = collect(binaries(machine))
        assert len(forms) > 100
        matched, refused = run_all(machine, forms)
    assert set(refused) <= DOCUMENTED
    assert len(matched) > len(forms) // 2
    # Each fix-up was exercised: rip-relative operands, widened rel8, calls, indirect calls.
    for needed in ("[rip]", "rel8", "call rel32", "call m64[rip]", "call r64", "call m64[spd8]"):
        assert any(needed in form for form in matched), f"no {needed} form ran"


def test_relocated_spans_match_the_cpu(tmp_path: Path) -> None:
    with scratch_machine(tmp_path) as machine:
        found = spans(binaries(machine))
        assert len(found) > 100
        matched, refused = run_all(machine, found)
    # Across instructions, a call must also be the last one (sites.py refuses it too).
    assert set(refused) <= DOCUMENTED | {RefusalKind.CALL_NOT_LAST}
    assert len(matched) > len(found) // 2
    assert any(" ; " in span and "[rip]" in span.rpartition(" ; ")[2] for span in matched)
