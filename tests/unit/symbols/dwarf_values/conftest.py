"""Programs compiled at test time, stopped under gdb (the oracle) and under our engine."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import LaunchConfig, StdioMode
from aliceserver.debuggers.symbols.dwarf.format import FormatOptions, format_value
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.types import ArrayType, StructType, strip
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.debuggers.symbols.elf import ElfImage

PROGRAMS = Path(__file__).parent / "programs"
DWARF_REGS = {
    "rax": 0, "rdx": 1, "rcx": 2, "rbx": 3, "rsi": 4, "rdi": 5, "rbp": 6, "rsp": 7,
    "r8": 8, "r9": 9, "r10": 10, "r11": 11, "r12": 12, "r13": 13, "r14": 14, "r15": 15,
    "rip": 16,
}  # fmt: skip
GDB_ENV = {
    "LC_ALL": "C.UTF-8",
    "LANG": "C.UTF-8",
    "HOME": "/nonexistent",
    "TERM": "dumb",
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
}


@dataclass
class Programs:
    directory: Path
    built: dict[str, Path] = field(default_factory=dict)

    def build(self, name: str, *flags: str) -> Path:
        src = PROGRAMS / name
        compiler = {".cpp": "g++", ".rs": "rustc"}.get(src.suffix, "gcc")
        if shutil.which(compiler) is None:
            pytest.skip(f"{compiler} not found")
        key = hashlib.sha256(repr((src.read_bytes(), flags)).encode()).hexdigest()[:16]
        if key in self.built:
            return self.built[key]
        out = self.directory / key / src.stem
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, out.parent / src.name)
        libs = [] if compiler == "rustc" else ["-lpthread"]
        result = subprocess.run(
            [compiler, *flags, src.name, "-o", src.stem, *libs],
            cwd=out.parent,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        self.built[key] = out
        return out


@pytest.fixture(scope="session")
def programs(tmp_path_factory: pytest.TempPathFactory) -> Programs:
    if shutil.which("gdb") is None:
        pytest.skip("gdb (the oracle) not found")
    return Programs(tmp_path_factory.mktemp("dwarf-values"))


def bp_line(binary: Path, marker: str) -> tuple[str, int]:
    for src in binary.parent.iterdir():
        if src.suffix in (".c", ".cpp", ".rs"):
            for number, text in enumerate(src.read_text().splitlines(), 1):
                if re.search(rf"@bp:{re.escape(marker)}\b", text):
                    return src.name, number
    raise AssertionError(f"no @bp:{marker} marker")


def gdb_run(binary: Path, marker: str, commands: Sequence[str]) -> list[str]:
    """Each command's output (stdout and errors) at the marker's line, under gdb."""
    file, line = bp_line(binary, marker)
    args = ["gdb", "-nx", "-batch", "-ex", "set pagination off", "-ex", "set width 0",
            "-ex", "set confirm off", "-ex", f"break {file}:{line}", "-ex", "run"]  # fmt: skip
    for i, cmd in enumerate(commands):
        args += ["-ex", f"echo <<<{i}>>>\\n", "-ex", cmd]
    args += ["-ex", "echo <<<end>>>\\n", "-ex", "kill"]
    args.append(str(binary))
    proc = subprocess.run(
        args,
        cwd=binary.parent,
        capture_output=True,
        text=True,
        timeout=60,
        env=GDB_ENV,
        stdin=subprocess.DEVNULL,
    )
    text = proc.stdout + "\n" + proc.stderr
    outputs: list[str] = []
    for i in range(len(commands)):
        m = re.search(rf"<<<{i}>>>\n(.*?)(?=<<<)", proc.stdout, re.S)
        outputs.append(m.group(1).strip() if m else "")
    # Errors go to stderr without markers: fill in commands that printed nothing.
    errors = [ln for ln in proc.stderr.splitlines() if ln and not ln.startswith("warning")]
    for i, out in enumerate(outputs):
        if not out and errors:
            outputs[i] = "ERROR: " + errors.pop(0)
    assert "<<<end>>>" in proc.stdout, text
    return outputs


def gdb_print(binary: Path, marker: str, exprs: Sequence[str]) -> dict[str, str]:
    outs = gdb_run(binary, marker, [f"print {e}" for e in exprs])
    result = {}
    for expr, out in zip(exprs, outs, strict=True):
        result[expr] = re.sub(r"^\$\d+ = ", "", out)
    return result


def gdb_info(binary: Path, marker: str, what: str) -> list[tuple[str, str]]:
    [out] = gdb_run(binary, marker, [f"info {what}"])
    pairs = []
    for text in out.splitlines():
        if " = " in text:
            name, _, value = text.partition(" = ")
            pairs.append((name, value))
    return pairs


# --- our side ------------------------------------------------------------------------------
class EngineFrame:
    """FrameContext for frame 0 of a thread stopped under PtraceDebugger."""

    def __init__(self, dbg: Any, tid: int, load_bias: int, image: ElfImage) -> None:
        self.dbg, self.tid = dbg, tid
        regs = dbg.read_registers(tid).values
        self.regs = {DWARF_REGS[n]: regs[n] for n in DWARF_REGS}
        self.pc: int = regs["rip"]
        self.fs_base: int | None = regs["fs_base"]
        self.load_bias: int = load_bias
        self._cfa = cfa_at(image, self.pc - load_bias, self.regs)

    def read_memory(self, address: int, size: int) -> bytes:
        return bytes(self.dbg.read_memory(address, size))

    def register(self, regno: int) -> int | None:
        return self.regs.get(regno)

    def cfa(self) -> int | None:
        return self._cfa

    def write_memory(self, address: int, data: bytes) -> None:
        self.dbg.write_memory(address, data)

    def write_register(self, regno: int, value: int) -> None:
        name = {v: k for k, v in DWARF_REGS.items()}[regno]
        self.dbg.write_register(self.tid, name, value)
        self.regs[regno] = value


class CallerFrame(EngineFrame):
    """Frame 1 of a -O0 program, unwound through the frame-pointer chain (a test stand-in
    for the CFI unwinder): rbp' = [rbp], rip' = [rbp+8], rsp' = rbp+16."""

    def __init__(self, callee: EngineFrame, image: ElfImage) -> None:
        self.dbg, self.tid, self.load_bias = callee.dbg, callee.tid, callee.load_bias
        self.fs_base = callee.fs_base
        rbp = callee.regs[6]
        read = lambda a: int.from_bytes(callee.read_memory(a, 8), "little")  # noqa: E731
        self.regs = {3: callee.regs[3], 12: callee.regs[12], 13: callee.regs[13],
                     14: callee.regs[14], 15: callee.regs[15]}  # fmt: skip
        self.regs.update({6: read(rbp), 16: read(rbp + 8), 7: rbp + 16})
        self.pc = self.regs[16]
        self._cfa = cfa_at(image, self.pc - 1 - self.load_bias, self.regs)


def cfa_at(image: ElfImage, link_pc: int, regs: dict[int, int]) -> int | None:
    """The CFA from .eh_frame through pyelftools (a test-only stand-in for the unwinder)."""
    from elftools.elf.elffile import ELFFile

    with open(image.path, "rb") as f:
        elf = ELFFile(f)
        dwarf = elf.get_dwarf_info()
        for entry in dwarf.EH_CFI_entries():
            if not hasattr(entry, "header") or "initial_location" not in entry.header:
                continue
            start = entry.header["initial_location"]
            if not start <= link_pc < start + entry.header["address_range"]:
                continue
            rule = None
            for row in entry.get_decoded().table:
                if row["pc"] <= link_pc:
                    rule = row["cfa"]
            if rule is None or rule.reg is None:
                return None
            return (regs[rule.reg] + rule.offset) & ((1 << 64) - 1)
    return None


@dataclass
class Stop:
    dbg: Any
    frame: EngineFrame
    symbols: ModuleSymbols
    image: ElfImage
    lookup_pc: int | None = None

    def symbolize(self, address: int, demangle_: bool = True) -> str | None:
        found = self.image.symbol_at(address - self.frame.load_bias)
        if found is None:
            return None
        sym, offset = found
        if offset >= max(sym.size, 1):
            return None
        name = demangle(sym.name)
        return name if offset == 0 else f"{name}+{offset}"

    def options(self, **kw: Any) -> FormatOptions:
        return FormatOptions(symbolize=self.symbolize, **kw)

    def value(self, name: str) -> Value:
        scope = self.symbols.frame_scope(self.frame, self.lookup_pc)
        assert scope is not None
        var = scope.lookup(name)
        assert var is not None, name
        return self.symbols.value_of(var, self.frame)

    def caller(self) -> Stop:
        """The same stop seen from frame 1 (variables looked up at pc - 1)."""
        frame = CallerFrame(self.frame, self.image)
        return Stop(self.dbg, frame, self.symbols, self.image, frame.pc - 1)

    def show(self, name: str, **kw: Any) -> str:
        return format_value(self.value(name), self.options(**kw))

    def print(self, text: str, fmt: str | None = None) -> str:
        """What `print[/fmt] text` shows, or `ERROR: message` like the gdb oracle's output."""
        from aliceserver.debuggers.symbols.dwarf.expr import FrameSymbols, evaluate_expression
        from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError

        try:
            scope = self.symbols.frame_scope(self.frame, self.lookup_pc)
            value = evaluate_expression(text, FrameSymbols(self.symbols, self.frame, scope))
            if not value.is_lvalue or value.bit_size:
                value.data()  # rvalues: surface errors as gdb does, not as `<error:>`
            elif not isinstance(strip(value.type), (StructType, ArrayType)):
                value.data()
        except EvaluationError as exc:
            if "optimized out" in str(exc):
                return "<optimized out>"
            return f"ERROR: {exc}"
        return format_value(value, self.options(top_level=True, fmt=fmt))


def demangle(name: str) -> str:
    """c++filt's reading of a symbol (the engine's symbolizer will demangle on its own)."""
    if not name.startswith("_Z") or shutil.which("c++filt") is None:
        return name
    out = subprocess.run(["c++filt", name], capture_output=True, text=True, check=False)
    return out.stdout.strip() or name


def link_address(binary: Path, marker: str) -> int:
    file, line = bp_line(binary, marker)
    out = subprocess.run(
        ["gdb", "-nx", "-batch", "-ex", f"info line {file}:{line}", str(binary)],
        capture_output=True,
        text=True,
        env=GDB_ENV,
        check=True,
        cwd=binary.parent,
    ).stdout
    m = re.search(r"starts at address (0x[0-9a-f]+)", out)
    assert m, out
    return int(m.group(1), 16)


@pytest.fixture
def stop_at(debugger: Any) -> Iterator[Any]:
    from tests.support.events import EventLog

    log = EventLog(debugger)

    def go(binary: Path, marker: str) -> Stop:
        image = ElfImage.load(str(binary))
        debugger.launch(LaunchConfig(program=str(binary), stdio=StdioMode.PIPES))
        [main] = [m for m in debugger.modules() if m.is_main]
        debugger.insert_breakpoint(link_address(binary, marker) + main.base)
        debugger.resume()
        stop = log.wait_for(Stopped, timeout=20)
        frame = EngineFrame(debugger, stop.thread_id, main.base, image)
        return Stop(debugger, frame, ModuleSymbols(image), image)

    yield go
