"""The scripted program FakeDebugger runs (tests/support/fake_debugger.py): its
instructions (each a 4-byte nop at CODE_BASE + 4*i that may start a function, print, call,
return, store to memory, wait or fault), its data and symbols, and the address layout of
code and stack."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

CODE_BASE = 0x401000
INSN_SIZE = 4
STACK_TOP = 0x7FFFFFFFF000
STACK_SIZE = 0x21000
PAGE = 0x1000
NOP4 = bytes.fromhex("0f1f4000")  # nop dword ptr [rax]: the bytes of every fake instruction


@dataclass(frozen=True, slots=True)
class FakeInstruction:
    """One instruction of the fake program and what executing it does."""

    function: str | None = None  # this instruction starts that function
    output: str | None = None  # the program writes this to stdout
    call: str | None = None  # call that function
    ret: bool = False  # return (from the outermost function: the program exits)
    store: tuple[int, bytes] | None = None  # write these bytes at that address
    blocks: bool = False  # arriving here the program waits (like sleep) until interrupted
    fault: bool = False  # executing it crashes with SIGSEGV (a null pointer dereference)


@dataclass(frozen=True, slots=True)
class FakeProgram:
    """The program FakeDebugger runs: its instructions, threads, exit code and data."""

    instructions: tuple[FakeInstruction, ...]
    exit_code: int = 0
    threads: int = 1
    pid: int = 4242
    path: str | None = None  # when set, launching another path fails like a missing file
    data: Mapping[int, bytes] = field(default_factory=dict)  # more mapped memory: base -> bytes
    symbols: Mapping[str, int] = field(default_factory=dict)  # data symbols: name -> address

    @staticmethod
    def default() -> FakeProgram:
        """main prints, calls helper (which stores to `counter`), waits once, returns 3."""
        i = FakeInstruction
        return FakeProgram(
            instructions=(
                i(function="main"), i(output="hello\n"), i(call="helper"), i(), i(blocks=True),
                i(), i(ret=True),
                i(function="helper"), i(store=(0x404000, b"\x01\x00\x00\x00")), i(ret=True),
            ),
            exit_code=3, data={0x404000: bytes(16)}, symbols={"counter": 0x404000},
        )  # fmt: skip
