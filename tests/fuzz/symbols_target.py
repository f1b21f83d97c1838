"""Fuzz the symbol readers with corrupted copies of a real test binary.

The binary is tests/programs/src_basic.c built with DWARF 4 and DWARF 5. A case is a few
mutations: bytes overwritten in a chosen section (.debug_info, .debug_abbrev, .debug_line,
.debug_str, .eh_frame, .symtab, ...), an offset or size field in a section header set to
an absurd value, the file truncated, or a type reference (DW_AT_type) pointed back at its
own DIE or at another type DIE: a cycle in a type chain. The mutated file is loaded and
queried the way the engine does (ELF symbols, CFI rows, the line index, globals, types,
frame scopes, values) by `symbols_worker` in a child process limited to 1.5 GB of address
space and a time budget per input: only typed errors (AliceError) may come out, and the
worker must neither die nor hang.
"""

from __future__ import annotations

import json
import os
import select
import struct
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from elftools.elf.elffile import ELFFile
from hypothesis import strategies as st

from tests.fuzz.dap_target import FuzzFailure

if TYPE_CHECKING:
    from tests.fuzz.targets import FuzzContext

REPO = Path(__file__).resolve().parents[2]
TIME_PER_INPUT = 30.0  # generous: a loaded machine; real loads take well under a second
SECTIONS = (".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str",
            ".debug_aranges", ".debug_rnglists", ".debug_loclists", ".debug_ranges",
            ".debug_loc", ".debug_frame", ".eh_frame", ".eh_frame_hdr", ".symtab", ".strtab",
            ".dynsym", ".dynstr", ".text", ".debug_str_offsets", ".debug_addr")  # fmt: skip
VALUES = (0, 1, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0xFFFFFFF0, 0x10000000)


@dataclass(frozen=True)
class Layout:
    """Where things are in the original binary (file offsets)."""

    data: bytes
    sections: dict[str, tuple[int, int]]  # name -> (offset, size)
    section_headers: list[int]  # file offset of each section header
    type_refs: list[tuple[int, int, int]]  # (file offset of a ref4 DW_AT_type, own DIE, CU)
    type_dies: list[int]  # CU-relative offsets of type DIEs (for 2-cycles), same CU as above
    shentsize: int


def layout_of(path: Path) -> Layout:
    data = path.read_bytes()
    with path.open("rb") as stream:
        elf = ELFFile(stream)
        sections: dict[str, tuple[int, int]] = {}
        for section in elf.iter_sections():
            if section["sh_type"] != "SHT_NOBITS":
                sections[section.name] = (section["sh_offset"], section["sh_size"])
        headers = [elf["e_shoff"] + i * elf["e_shentsize"] for i in range(elf.num_sections())]
        refs: list[tuple[int, int, int]] = []
        types: list[int] = []
        info_offset = sections[".debug_info"][0]
        dwarf = elf.get_dwarf_info()
        for cu in dwarf.iter_CUs():
            for die in cu.iter_DIEs():
                if die.tag in ("DW_TAG_pointer_type", "DW_TAG_typedef", "DW_TAG_const_type",
                               "DW_TAG_structure_type", "DW_TAG_array_type", "DW_TAG_member",
                               "DW_TAG_volatile_type", "DW_TAG_variable", "DW_TAG_formal_parameter"):  # fmt: skip
                    attr = die.attributes.get("DW_AT_type")
                    if attr is not None and attr.form == "DW_FORM_ref4":
                        refs.append((info_offset + attr.offset, die.offset - cu.cu_offset, cu.cu_offset))
                if isinstance(die.tag, str) and die.tag.endswith("_type"):
                    types.append(die.offset - cu.cu_offset)
            break  # the first unit (the program's own) is enough
    return Layout(data, sections, headers, refs, types, elf["e_shentsize"])


@dataclass(frozen=True)
class Mutation:
    kind: str
    where: str
    position: int
    value: int
    width: int

    def __repr__(self) -> str:
        return f"Mutation({self.kind}, {self.where}, +{self.position:#x}, {self.value:#x}/{self.width})"


MUTATIONS = st.builds(
    Mutation,
    st.sampled_from(["bytes", "bytes", "bytes", "word", "word", "header", "truncate", "cycle", "cycle2"]),
    st.sampled_from(SECTIONS),
    st.integers(0, 1 << 20),
    st.one_of(st.sampled_from(VALUES), st.integers(0, 2**32 - 1)),
    st.sampled_from([1, 2, 4, 8]),
)


def mutate(layout: Layout, mutations: list[Mutation]) -> bytes:
    data = bytearray(layout.data)
    cut: int | None = None
    for m in mutations:
        offset, size = layout.sections.get(m.where, (0, len(data)))
        if m.kind == "bytes":
            at = offset + m.position % max(1, size)
            data[at : at + m.width] = (m.value & ((1 << (8 * m.width)) - 1)).to_bytes(m.width, "little")
        elif m.kind == "word":  # an offset or length field: 4 bytes at an aligned spot
            at = offset + (m.position % max(1, size)) // 4 * 4
            data[at : at + 4] = struct.pack("<I", m.value & 0xFFFFFFFF)
        elif m.kind == "header":  # sh_offset (+24) or sh_size (+32) of a section header
            header = layout.section_headers[m.position % len(layout.section_headers)]
            field = 24 if m.width <= 2 else 32
            data[header + field : header + field + 8] = struct.pack("<Q", m.value * (1 + (m.width == 8) * 0xFFFF))
        elif m.kind == "truncate":
            point = offset + m.position % max(1, size)
            cut = point if cut is None else min(cut, point)
        elif m.kind in ("cycle", "cycle2") and layout.type_refs:
            at, own, _cu = layout.type_refs[m.position % len(layout.type_refs)]
            target = own
            if m.kind == "cycle2" and layout.type_dies:
                target = layout.type_dies[m.value % len(layout.type_dies)]
            data[at : at + 4] = struct.pack("<I", target)
    return bytes(data[:cut] if cut is not None else data)


class SymbolsTarget:
    name = "symbols"

    def __init__(self, ctx: FuzzContext) -> None:
        self.stats: Counter[str] = Counter()
        self.workdir = ctx.workdir
        self.source = str(ctx.builder.source("src_basic"))
        self.layouts = [
            layout_of(ctx.builder.build("src_basic", ("-g", flag, "-O0")))
            for flag in ("-gdwarf-4", "-gdwarf-5")
        ]
        self.file = self.workdir / "mutated.elf"
        self._worker: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self._worker is None or self._worker.poll() is not None:
            env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
            self._worker = subprocess.Popen(
                [sys.executable, "-m", "tests.fuzz.symbols_worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, cwd=REPO, env=env,
            )  # fmt: skip
        return self._worker

    def strategy(self) -> st.SearchStrategy[Any]:
        return st.tuples(st.integers(0, len(self.layouts) - 1), st.lists(MUTATIONS, min_size=1, max_size=4))

    def run(self, data: bytes) -> dict[str, Any]:
        """Load `data` in the worker: its report, or FuzzFailure for a hang or a death."""
        self.file.write_bytes(data)
        worker = self._start()
        assert worker.stdin is not None and worker.stdout is not None
        worker.stdin.write(f"{self.file} {self.source}\n")
        worker.stdin.flush()
        ready, _, _ = select.select([worker.stdout], [], [], TIME_PER_INPUT)
        if not ready:
            self._stop()
            raise FuzzFailure(f"the symbol readers hung (> {TIME_PER_INPUT:.0f} s)")
        line = worker.stdout.readline()
        if not line:
            code = worker.wait()
            self._stop()
            raise FuzzFailure(f"the worker died (exit {code}) loading the file")
        report: dict[str, Any] = json.loads(line)
        return report

    def check(self, case: tuple[int, list[Mutation]]) -> None:
        which, mutations = case
        report = self.run(mutate(self.layouts[which], mutations))
        self.stats["calls"] += int(report["calls"])
        self.stats["typed errors"] += len(report["errors"])
        self.stats["clean loads" if not report["errors"] else "degraded loads"] += 1
        if report["failures"]:
            raise FuzzFailure(f"{len(report['failures'])} untyped failures; the first:\n{report['failures'][0]}")

    def finish(self) -> None:
        """The unmutated binaries still load cleanly in the same worker."""
        for layout in self.layouts:
            report = self.run(layout.data)
            if report["failures"] or report["errors"]:
                raise FuzzFailure(f"the original binary does not load cleanly: {report!r}"[:2000])

    def _stop(self) -> None:
        if self._worker is not None:
            if self._worker.poll() is None:
                self._worker.kill()
            self._worker.wait()
            for stream in (self._worker.stdin, self._worker.stdout):
                if stream is not None:
                    stream.close()
            self._worker = None

    def close(self) -> None:
        self._stop()
