"""The program generator of conformance/generated.py: deterministic per seed, compilable,
and covering what it promises (bitfields, boundary array sizes, every prologue kind)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conformance.cgen import generate
from conformance.gen_session import flatten
from conformance.generated import plan
from tests.support.mi_grammar import parse_record

SEEDS = range(1, 13)


def test_the_same_seed_gives_the_same_program() -> None:
    for seed in SEEDS:
        first, again = generate(seed), generate(seed)
        assert first == again
        assert plan(first) == plan(again)
    assert len({generate(seed).source for seed in SEEDS}) == len(SEEDS)


def test_programs_cover_the_promised_shapes() -> None:
    sources = "\n".join(generate(seed).source for seed in range(1, 60))
    kinds = {f.kind for seed in range(1, 60) for f in generate(seed).functions}
    assert kinds == {"leaf", "no-locals", "many-locals", "varargs", "big-frame", "many-args",
                     "struct-args"}
    assert re.search(r"long long b\d+ : (3[3-9]|[4-6]\d)", sources)  # a bitfield over 32 bits
    for size in ("[256]", "[65536]", "[65535]", "[128]", "[2147483648]"):
        assert size in sources, size
    assert re.search(r"\w+\[\];", sources)  # a flexible array member
    assert "typedef t" in sources and "va_arg" in sources


def test_end_lines_point_into_their_functions() -> None:
    for seed in SEEDS:
        program = generate(seed)
        lines = program.source.splitlines()
        for function in program.functions:
            text = lines[function.end_line - 1]
            assert text.strip().startswith(("g_sink", "return")), (seed, function.name, text)
            opening = next(i for i, line in enumerate(lines) if f" {function.name}(" in line)
            assert opening < function.end_line - 1


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not found")
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_programs_compile_cleanly(tmp_path: Path, opt: str) -> None:
    for seed in SEEDS:
        source = tmp_path / f"gen{seed}.c"
        source.write_text(generate(seed).source)
        result = subprocess.run(
            ["gcc", "-g", opt, "-Wall", "-Wno-unused", "-Werror=implicit-function-declaration",
             "-c", "-o", str(tmp_path / f"gen{seed}.o"), str(source)],
            capture_output=True, text=True,
        )
        assert result.returncode == 0, f"seed {seed}:\n{result.stderr}"
        assert " error" not in result.stderr


def test_flatten_keys_variables_by_name_and_children_by_index() -> None:
    record = parse_record(
        '^done,variables=[{name="x",arg="1",value="3"},{name="y",value="0"}],'
        'children=[child={name="v.a",value="1"}]'
    )
    out: dict[str, str] = {}
    flatten(record.results, "", out)
    assert out["variables[x].value"] == "3" and out["variables[y].value"] == "0"
    assert out["variables.length"] == "2"
    assert out["children[0].name"] == "v.a"
