"""aarch64 instructions spelled as gdb-multiarch spells them (binutils' disassembler): the
instruction text of `x/i` and `disassemble` (gdbcommands/disasm_arm64.py) over capstone's
decoding, compared line by line with gdb's `disassemble` of the same cross-assembled
object and of a cross-compiled test program (-O0 and -O2)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aliceserver.adapters.gdbcommands.disasm_text import instruction_text
from aliceserver.debuggers.arch.registry import AARCH64_ARCH
from aliceserver.debuggers.symbols.disasm import Disassembler
from aliceserver.debuggers.symbols.elf import ElfCache
from tests.support.build import Builder
from tests.support.qemu import CROSS_GCC, cross_builder, tool

# One of each operand form: move immediates (with binutils' `// #N` comment), logical and
# arithmetic immediates, shifts and bit fields (decimal), branches and literal loads to
# addresses, memory offsets, pre- and post-index, conditions with their SVE aliases,
# floats, vectors, system instructions and an undefined word.
INSTRUCTIONS = """
 mov w0, #0x10000
 mov x0, #-1
 mov x10, #1234
 mov w1, #-5
 movk x0, #0x1234, lsl #16
 and x0, x1, #0xff
 orr w0, w1, #0x1
 tst w0, #0x4
 ccmp w0, #1, #0, ne
 add x0, x1, #1, lsl #12
 sub sp, sp, #0x1, lsl #12
 cmn w0, #5
 asr x0, x1, #3
 ubfx x0, x1, #4, #8
 bfi x0, x2, #32, #32
 tbz w0, #3, f
 tbnz x0, #40, f
 cbnz x0, f
 adr x0, f
 ldr x0, [x1, x2, lsl #3]
 ldr x0, [x1, #-8]
 ldr x0, =0x123456789
 ldr w0, [x1], #4
 ldp x29, x30, [sp], #48
 str q0, [sp, #-32]!
 stp x29, x30, [sp, #-64]!
 csel w0, w1, w2, lt
 cset w0, eq
 b.eq f
 b.hs f
 b.lo f
 b.gt f
 movi v0.4s, #0x1
 fmov d0, #-2.5
 fmov s0, #1.5
 dup v0.4s, w1
 ld1 {v0.4s}, [x0]
 add x0, x1, w2, uxtw #2
 svc #0
 brk #0x3e8
 mrs x0, tpidr_el0
 nop
 ret
 blr x3
 .inst 0x23456789
"""


def _gdb_lines(path: Path, *functions: str) -> list[tuple[int, str]]:
    """(address, instruction text) of each line of gdb's `disassemble FUNCTION`."""
    argv = [tool("gdb-multiarch"), "-nx", "-batch"]
    for function in functions:
        argv += ["-ex", f"disassemble {function}"]
    output = subprocess.run([*argv, str(path)], capture_output=True, text=True, timeout=120).stdout
    found = []
    for line in output.splitlines():
        if line.startswith("   0x"):
            at, _, text = line.partition(":\t")
            found.append((int(at.split()[0], 16), text))
    return found


def _ours(path: Path, lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    image = ElfCache().get(str(path))

    def label(address: int) -> str:
        found = image.symbol_at(address)
        if found is None or found[1] >= found[0].size:  # past its end: gdb names none there
            return ""
        symbol, offset = found
        return f" <{symbol.name}+{offset}>" if offset else f" <{symbol.name}>"

    text = next(s for s in image.sections if s.name == ".text")
    data = path.read_bytes()[text.offset : text.offset + text.size]
    disassembler = Disassembler(AARCH64_ARCH)
    ours = []
    for address, _ in lines:
        (insn,) = disassembler.disassemble(data[address - text.addr :], address, 1)
        ours.append((address, instruction_text(insn, label)))
    return ours


def test_instruction_forms_match_gdb(tmp_path: Path) -> None:
    source = tmp_path / "forms.s"
    source.write_text(".text\n.globl f\n.type f, %function\nf:\n" + INSTRUCTIONS + ".size f, .-f\n")
    program = tmp_path / "forms"
    subprocess.run([tool(CROSS_GCC), "-nostdlib", "-static", "-Wl,-e,f", "-o", str(program), str(source)],
                   check=True, capture_output=True)  # fmt: skip
    gdb = _gdb_lines(program, "f")
    assert len(gdb) == INSTRUCTIONS.strip().count("\n") + 1
    assert _ours(program, gdb) == gdb


@pytest.mark.parametrize("optimization", ["-O0", "-O2"])
def test_compiled_functions_match_gdb(builder: Builder, optimization: str) -> None:
    program = cross_builder(builder).build("aarch64_frames", ("-g", optimization))  # dynamic: PLT, GOT
    gdb = _gdb_lines(program, "main", "middle", "leaf", "recurse", "make_point", "make_quad")
    assert len(gdb) > 40
    assert _ours(program, gdb) == gdb
