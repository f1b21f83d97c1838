"""Rust enums (Option, Result, a program's own) as var objects, exactly as gdb 13 with the
toolchain's printers shows them: two children, the discriminant (`N_anonymous`, exp
`<anonymous union>`, no path expression) and the active variant (`Some`, type
`core::option::Option<i32>::Some`), whose fields are its children; through a pointer too.
gdb's path expressions of variants (`(ok).Ok`) are no Rust expressions, so our var objects
find them through their parents. (DAP and the agent tools show the variant's fields as
the enum's children: test_rust_enum_children.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_rust_printers import rust_gdb_options
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_rustc
from tests.support.gdb import gdb_env, gdb_path

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_rustc() is None, reason="rustc not installed"),
]

GDB_MI = [str(gdb_path()), "-nx", "-q", "-i=mi"]
OURS_MI = [sys.executable, "-m", "aliceserver", "-nx", "-q", "-i=mi"]


def build(builder: Builder, name: str) -> Path:
    return MoreBuilder(builder.cache_dir).build_rust(name)


def at(name: str, marker: str) -> str:
    return f"{name}.rs:{marker_line(PROGRAMS_DIR / f'{name}.rs', marker)}"


def mi_replies(argv: list[str], program: Path, location: str, script: list[str]) -> list[str]:
    """The ^done/^error record of each command of `script`, at `location`."""
    lines = [f"-break-insert {location}", "-exec-run", *script, "-gdb-exit"]
    done = subprocess.run(argv + [str(program)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=120, env=gdb_env())  # fmt: skip
    records = [line for line in done.stdout.splitlines() if line.startswith(("^done", "^error"))][1:]
    # A pointer's value is a stack address: gdb's program gets LINES and COLUMNS too.
    return [re.sub(r'value="0x[0-9a-f]{8,}"', 'value="<stack address>"', line) for line in records]


def compare(program: Path, location: str, script: list[str]) -> list[tuple[str, str]]:
    expected = mi_replies([*GDB_MI, *rust_gdb_options()], program, location, script)
    got = mi_replies(OURS_MI, program, location, script)
    assert list(zip(script, got, strict=True)) == list(zip(script, expected, strict=True))
    return list(zip(script, expected, strict=True))


STD_SCRIPT = [
    "-enable-pretty-printing",
    "-var-create - * some", "-var-create - * none", "-var-create - * ok", "-var-create - * err",
    "-var-create - * some_string", "-var-create - * &ok", "-var-create - * holder",
    "-var-list-children --all-values var1", "-var-list-children --all-values var2",
    "-var-list-children --all-values var3", "-var-list-children --all-values var4",
    "-var-list-children --all-values var5", "-var-list-children --all-values var6",
    "-var-list-children --all-values var1.Some", "-var-list-children --all-values var3.Ok",
    "-var-list-children --all-values var4.Err", "-var-list-children --all-values var5.Some",
    "-var-list-children --all-values var6.Ok",
    "-var-info-expression var3.0_anonymous", "-var-info-expression var3.Ok",
    "-var-info-expression var3.Ok.__0",
    "-var-info-path-expression var3.0_anonymous", "-var-info-path-expression var3.Ok",
    "-var-info-path-expression var3.Ok.__0", "-var-info-path-expression var6.Ok",
    "-var-info-path-expression var6.Ok.__0",
    "-var-evaluate-expression var3.0_anonymous", "-var-evaluate-expression var3.Ok",
    "-var-evaluate-expression var3.Ok.__0", "-var-evaluate-expression var4.Err.__0",
    "-var-evaluate-expression var6.Ok.__0",
    "-var-list-children --all-values var7", "-var-list-children --all-values var7.tag",
    "-var-list-children --all-values var7.tag.Some", "-var-info-num-children var7.tag",
    "-var-info-type var7.tag.Some", "-var-show-attributes var3.Ok",
    "-var-set-format var3.0_anonymous hexadecimal", "-var-evaluate-expression var3.0_anonymous",
    "-var-evaluate-expression -f octal var3.Ok.__0",
    "-var-update --all-values *", "-var-delete var3", "-var-delete var6",
]  # fmt: skip


def test_std_enums_match_gdb(builder: Builder) -> None:
    replies = compare(build(builder, "rust_printers"), at("rust_printers", "main"), STD_SCRIPT)
    listed = dict(replies)["-var-list-children --all-values var3"]
    assert 'name="var3.0_anonymous",exp="<anonymous union>"' in listed  # gdb's enum children
    assert 'name="var3.Ok",exp="Ok",numchild="1"' in listed


USER_SCRIPT = [
    "-var-create - * circle", "-var-create - * rect", "-var-create - * empty",
    "-var-create - * ok", "-var-create - * &rect",
    "-var-list-children --all-values var1", "-var-list-children --all-values var2",
    "-var-list-children --all-values var3", "-var-list-children --all-values var4",
    "-var-list-children --all-values var5",
    "-var-list-children --all-values var1.Circle", "-var-list-children --all-values var2.Rect",
    "-var-list-children --all-values var3.Empty", "-var-list-children --all-values var5.Rect",
    "-var-info-path-expression var2.Rect.w", "-var-info-path-expression var5.Rect.h",
    "-var-evaluate-expression var2.Rect.w", "-var-evaluate-expression var5.Rect.h",
    "-var-info-num-children var2.Rect", "-var-info-expression var2.Rect.w",
    "-var-update --all-values *", "-var-delete var2",
]  # fmt: skip


def test_user_enums_match_gdb(builder: Builder) -> None:
    """Tuple, struct and dataless variants; a pointer's children (paths with `->`)."""
    replies = dict(compare(build(builder, "rust_values"), at("rust_values", "values"), USER_SCRIPT))
    assert replies["-var-info-path-expression var5.Rect.h"] == '^done,path_expr="((&rect)->Rect).h"'


def _children(record: str) -> list[str]:
    return re.findall(r"child=\{(?:[^{}]|\{\.\.\.\})*\}", record)


def test_negative_discriminants(builder: Builder) -> None:
    """gdb matches an enum's DW_AT_discr_value (an unsigned form) against the signed
    discriminant, so it finds no variant for `low` (-100) and `neg` (-300) and lists only
    the discriminant. Ours reads the value as signed, as DWARF says and as our `print`
    (`rust_discr::Level::Low(7)`): the variant follows the same discriminant child."""
    script = ["-var-create - * low", "-var-create - * mid", "-var-create - * neg",
              "-var-create - * pos", *(f"-var-list-children --all-values var{i}" for i in range(1, 5)),
              "-var-list-children --all-values var2.Mid"]  # fmt: skip
    program, location = build(builder, "rust_discr"), at("rust_discr", "show")
    expected = mi_replies([*GDB_MI, *rust_gdb_options()], program, location, script)
    got = mi_replies(OURS_MI, program, location, script)
    for index in (1, 3):  # mid and pos: as gdb
        assert got[index] == expected[index] and got[index + 4] == expected[index + 4]
    assert got[-1] == expected[-1]
    for index, variant in ((0, "rust_discr::Level::Low"), (2, "rust_discr::Wide::Neg")):
        assert got[index] == expected[index].replace('numchild="1"', 'numchild="2"', 1)
        [discriminant] = _children(expected[index + 4])
        ours = _children(got[index + 4])
        assert ours[0] == discriminant and len(ours) == 2 and f'type="{variant}"' in ours[1]


def gdb_variant_fields(program: Path, location: str, names: list[str]) -> dict[str, list[tuple[str, str]]]:
    """(exp, value) of the fields of each enum's active variant, from gdb's var objects."""
    script = [f"-var-create {name} * {name}" for name in names]
    for name in names:
        script.append(f"-var-list-children {name}")
    replies = mi_replies([*GDB_MI, *rust_gdb_options()], program, location, script)
    variants = {name: re.search(r'exp="(\w+)"', _children(reply)[1]).group(1)  # type: ignore[union-attr]
                for name, reply in zip(names, replies[len(names):], strict=True)}  # fmt: skip
    fields = mi_replies([*GDB_MI, *rust_gdb_options()], program, location,
                        script + [f"-var-list-children --all-values {n}.{variants[n]}" for n in names])  # fmt: skip
    return {name: re.findall(r'exp="([^"]*)",numchild="\d+",value="([^"]*)"', reply)
            for name, reply in zip(names, fields[2 * len(names):], strict=True)}  # fmt: skip


def test_variant_changes_over_a_session(builder: Builder) -> None:
    """-var-update after the active variant changed: as gdb's, the children made for the
    old variant are read again by their place (`r.Ok.__0` reports the Err's -2)."""
    program = build(builder, "rust_enum_steps")
    script = [
        "-enable-pretty-printing", "-break-insert " + at("rust_enum_steps", "changed"),
        "-break-insert " + at("rust_enum_steps", "after"),
        "-var-create o * o", "-var-create r * r", "-var-list-children --all-values o",
        "-var-list-children --all-values r", "-var-list-children --all-values r.Ok",
        "-exec-continue", "-var-update --all-values *", "-var-list-children --all-values o",
        "-var-evaluate-expression o.None", "-exec-continue", "-var-update --all-values *",
    ]  # fmt: skip
    location = at("rust_enum_steps", "before")
    expected = mi_replies([*GDB_MI, *rust_gdb_options()], program, location, script)
    got = mi_replies(OURS_MI, program, location, script)
    assert got == expected
    assert any('name="r.Ok.__0",value="-2"' in record for record in expected)


def test_a_printers_var_object_out_of_scope_keeps_its_hint(builder: Builder) -> None:
    """-var-update of a var object a printer shows, once out of scope: gdb still gives its
    `displayhint` and `dynamic` (varobj_update_one); ours left them out."""
    program = build(builder, "rust_scoped_vec")
    script = ["-enable-pretty-printing", "-var-create - * inner", "-var-list-children --all-values var1",
              "-exec-next", "-exec-next", "-var-update --all-values *"]  # fmt: skip
    location = at("rust_scoped_vec", "inner")  # (-exec-next answers ^running: no record)
    expected = mi_replies([*GDB_MI, *rust_gdb_options()], program, location, script)
    assert mi_replies(OURS_MI, program, location, script) == expected
    assert 'in_scope="false",type_changed="false",displayhint="array",dynamic="1"' in expected[-1], expected
