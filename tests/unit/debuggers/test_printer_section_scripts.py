"""The scripts an image names in its .debug_gdb_scripts section (gdb's auto-load), found
through the one ELF header parser, on a program gcc builds with an inline script."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aliceserver.debuggers.printers.autoload import AutoLoad
from aliceserver.debuggers.printers.loader import Script, judged, section_scripts

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


def scripted_program(tmp_path: Path) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    source = tmp_path / "scripted.c"
    source.write_text(SOURCE)
    program = tmp_path / "scripted"
    subprocess.run(["gcc", "-g", str(source), "-o", str(program)], check=True)
    return program


def test_inline_script_of_the_section(tmp_path: Path) -> None:
    program = scripted_program(tmp_path)
    scripts = section_scripts(str(program), [], [])
    assert scripts == [Script(f"<.debug_gdb_scripts of {program}: gdb.inlined-script>",
                              "print('hello from the section')\n", name="gdb.inlined-script", judged=str(program))]
    assert section_scripts(str(tmp_path / "scripted.c"), [], []) == []  # not ELF: no scripts


def test_an_inline_script_runs_only_from_a_safe_image(tmp_path: Path) -> None:
    """gdb judges an inline script by its image's path: outside the safe path it is declined
    with gdb's warning and advice (the advice once a session), and stays declined until the
    program is read again; inside, it is allowed."""
    program = scripted_program(tmp_path)
    auto_load = AutoLoad()
    allowed, notes = judged(str(program), [], auto_load)
    assert allowed == []
    assert [category for category, _ in notes] == ["warning", "console"]
    assert notes[0][1] == (f'warning: File "{program}" auto-loading has been declined by your '
                           "`auto-load safe-path' set to \"$debugdir:$datadir/auto-load\".\n")
    assert f"\tadd-auto-load-safe-path {program}\n" in notes[1][1]
    assert [(r.loaded, r.name, r.inline) for r in auto_load.records.values()] == [(False, "gdb.inlined-script", True)]
    auto_load.add_safe_path(str(tmp_path))
    assert judged(str(program), [], auto_load) == ([], [])  # declined as it was read: told once
    auto_load.read_again()  # gdb's `file` again
    allowed, notes = judged(str(program), [], auto_load)
    assert [s.name for s in allowed] == ["gdb.inlined-script"] and notes == []
