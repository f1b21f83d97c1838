"""gdb's `$_gdb_setting` and `$_gdb_setting_str` (gdb.base/setshow.exp), side by side with
gdb 13: each setting's value with gdb's type for it, before and after `set`, and gdb's
errors for a name `show` does not know and an argument that is no string."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, ours
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_gdb_setting_values_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("print_limits")
    commands = ex(
        'p $_gdb_setting("listsize")', "set listsize unlimited", 'p $_gdb_setting("listsize")',
        "set height 100", 'p $_gdb_setting("height")', 'p $_gdb_setting("height") - 101',
        'p $_gdb_setting_str("height")', "set height unlimited", 'p $_gdb_setting("height")',
        'p $_gdb_setting_str("height")', 'p $_gdb_setting("p elem")',
        'p $_gdb_setting_str("print frame-info")', 'p $_gdb_setting("confirm")',
        "set max-completions unlimited", 'p $_gdb_setting("max-completions")', 'p $_gdb_setting("prompt")',
        'set args foo "bar"', 'p $_gdb_setting_str("args")', 'p $_gdb_setting("args")',
        "set breakpoint pending off", 'p $_gdb_setting("breakpoint pending")',
        "set breakpoint pending auto", 'p $_gdb_setting("breakpoint pending")',
        'p $_gdb_setting_str("breakpoint pending")', "set check type off", 'p $_gdb_setting("check type")',
        'p $_gdb_setting_str("check type")', 'p $_gdb_setting("check range")', 'ptype $_gdb_setting("args")', 'output $_gdb_setting("listsize")',
        'p "$_gdb_setting(\\"width\\")"', 'p $_gdb_setting("nosuch")', 'p $_gdb_setting("print")',
        "p $_gdb_setting(1)", "p $_gdb_setting((char*)0)", "p $_gdb_setting()",
    )
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert '= "foo \\"bar\\""' in got.stdout and "= 4294967295" in got.stdout


def test_complaints_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """`set complaints N` (setshow.exp) takes any number: aliceserver makes no complaints, so
    none is over the limit; gdb's errors for none and for `unlimited`, which it reads as an
    expression."""
    program = builder.build("print_limits")
    commands = ex("set complaints 100", "show complaints", 'p $_gdb_setting("complaints")', "set complaints 0",
                  "show complaints", "set complaints", "set complaints unlimited", "set complaints 0x10",
                  "show complaints", "set complaints -1", "show complaints", "set can-use-hw-watchpoints")
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert "symbols is 100." in got.stdout


def test_annotate_level_zero_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """`annotate` (setshow.exp) at 0: no annotations; level 2 (annotations of prompts,
    frames and values) is refused by name (level 1: test_annotate_level1.py)."""
    program = builder.build("print_limits")
    commands = ex("show annotate", "set annotate 0", "show annotate", "set annotate",
                  'p $_gdb_setting("annotate")', 'p $_gdb_setting_str("annotate")')
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert "Annotation_level is 0." in got.stdout
    refused = ours(["-batch", "-nx", *ex("set annotate 2", "show annotate"), str(program)], tmp_path)
    assert 'The setting "annotate" is not supported by aliceserver except as 0 or 1.' in refused.stderr
    assert "Annotation_level is 0." in refused.stdout
