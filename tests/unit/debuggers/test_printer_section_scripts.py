"""The scripts an image names in its .debug_gdb_scripts section (gdb's auto-load), found
through the one ELF header parser, on a program gcc builds with an inline script."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aliceserver.debuggers.printers.loader import section_scripts

# gdb manual, "The .debug_gdb_scripts section": an inline script entry (type 4).
SOURCE = r"""
__asm__(".pushsection \".debug_gdb_scripts\", \"MS\",@progbits,1\n"
        ".byte 4\n"
        ".ascii \"gdb.inlined-script\\n\"\n"
        ".ascii \"print('hello from the section')\\n\"\n"
        ".byte 0\n"
        ".popsection\n");
int main(void) { return 0; }
"""


def test_inline_script_of_the_section(tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    source = tmp_path / "scripted.c"
    source.write_text(SOURCE)
    program = tmp_path / "scripted"
    subprocess.run(["gcc", "-g", str(source), "-o", str(program)], check=True)
    scripts = section_scripts(str(program), [])
    assert [(s.origin, s.source) for s in scripts] == [
        (f"<.debug_gdb_scripts of {program}: gdb.inlined-script>", "print('hello from the section')\n")
    ]
    assert section_scripts(str(source), []) == []  # not ELF: no scripts
