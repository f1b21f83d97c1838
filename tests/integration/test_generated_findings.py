"""What the generated differential tester (conformance/generated.py) found printed unlike
gdb, on a small fixed program (tests/programs/gen_values.c). The expected texts are gdb
13.1's for the same commands."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import List, Tuple, parse_record

SOURCE = "gen_values.c"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("gen_values")


@pytest.fixture
def mi(prog: Path) -> Iterator[MiClient]:
    client = MiClient(["-i=mi", "-q", str(prog)], cwd=prog.parent)
    try:
        client.prompt()
        client.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'frame')}")
        client.command("-exec-run")
        client.stopped()
        yield client
    finally:
        client.close()


def console(client: MiClient, command: str) -> str:
    """The text a console command prints, or its error message."""
    result, seen = client.command(command, token=False)
    if result.cls == "error":
        message = result.results["msg"]
        assert isinstance(message, str)
        return f"error: {message}"
    return "".join(parse_record(line).text for line in seen if line.startswith("~"))


def test_long_double_prints_all_its_digits(mi: MiClient) -> None:
    # Read through a Python float, -1e-5L was the double -1.00000000000000008e-05.
    assert console(mi, "print g_ld") == "$1 = -9.99999999999999999995e-06\n"
    assert console(mi, "print scale") == "$2 = -9.99999999999999999995e-06\n"
    # An unnormal (integer bit clear, exponent not zero): the x87 refuses it, gdb says so.
    assert console(mi, "print g_bad_ld.ld") == "$3 = <invalid float value>\n"
    # A NaN's payload is its whole mantissa, the integer bit too (it lost the top bit)
    assert console(mi, "print g_nan_ld.ld") == "$4 = -nan(0xc00000000000005a)\n"


def test_pointer_to_a_qualified_array_is_named_as_gdb(mi: MiClient) -> None:
    # A volatile array's elements are volatile; `&big` points to the array: (*) binds first.
    assert console(mi, "whatis &big") == "type = volatile char (*)[8192]\n"
    assert console(mi, "print &big").startswith("$1 = (volatile char (*)[8192]) 0x")
    assert console(mi, "whatis big") == "type = volatile char [8192]\n"


def _children(client: MiClient, command: str) -> tuple[list[dict[str, str]], str]:
    result = client.ok(command).results
    listed = result.get("children")
    rows = []
    if isinstance(listed, List):
        for child in listed.values:
            assert isinstance(child, Tuple)
            rows.append({key: value for key, value in child.items if isinstance(value, str)})
    more = result["has_more"]
    assert isinstance(more, str)
    return rows, more


def test_anonymous_members_are_varobj_children_as_gdb_names_them(mi: MiClient) -> None:
    mi.ok("-var-create vp * g_parts")
    rows, _ = _children(mi, "-var-list-children --all-values vp")
    anonymous = [(row["name"], row["exp"], row["type"]) for row in rows if "anonymous" in row["exp"]]
    assert anonymous == [("vp.3_anonymous", "<anonymous union>", "union {...}"),
                         ("vp.4_anonymous", "<anonymous struct>", "struct {...}")]
    rows, _ = _children(mi, "-var-list-children --all-values vp.4_anonymous")
    assert [(row["name"], row["value"]) for row in rows] == [("vp.4_anonymous.x", "1"),
                                                             ("vp.4_anonymous.y", "2")]
    rows, _ = _children(mi, "-var-list-children --all-values vp.3_anonymous")
    assert [row["exp"] for row in rows] == ["as_int", "as_float"]
    assert mi.ok("-var-evaluate-expression vp.3_anonymous.as_int").results["value"] == "9"


def test_a_window_of_children_says_whether_more_follow(mi: MiClient) -> None:
    mi.ok("-var-create va * big")
    rows, more = _children(mi, "-var-list-children --all-values va 0 12")
    assert len(rows) == 12 and more == "1"
    rows, more = _children(mi, "-var-list-children --all-values va 8188 8192")
    assert [row["exp"] for row in rows] == ["8188", "8189", "8190", "8191"] and more == "0"


def test_print_of_what_cannot_be_read(mi: MiClient) -> None:
    # gdb's bare message, not the <error: ...> a member that cannot be read shows inside {}
    assert console(mi, "print *g_window") == "error: Cannot access memory at address 0x0"
    result, _ = mi.command("-data-evaluate-expression *g_window")
    assert result.cls == "error" and result.results["msg"] == "Cannot access memory at address 0x0"


def test_print_of_a_variable_optimized_out(builder: Builder) -> None:
    prog = builder.build("gen_values", flags=("-g", "-O2"))
    client = MiClient(["-i=mi", "-q", str(prog)], cwd=prog.parent)
    try:
        client.prompt()
        client.ok("-break-insert main")
        client.command("-exec-run")
        client.stopped()
        # gdb: a value, `<optimized out>`; it was an error with that text as its message
        assert console(client, "print s_gone") == "$1 = <optimized out>\n"
        assert client.ok("-data-evaluate-expression s_gone").results["value"] == "<optimized out>"
        assert console(client, "print s_gone + 1") == "error: value has been optimized out"
    finally:
        client.close()


PARTS_BODY = """struct parts {
    int id;
    unsigned int flag : 3;
    long long wide : 40;
    union {
        int as_int;
        float as_float;
    };
    struct {
        short x;
        short y;
    };
    char tail[];
}"""


def test_ptype_writes_out_bodies_and_resolves_typedefs(mi: MiClient) -> None:
    # ptype printed whatis's one line: `type = struct parts`, `type = ticks_t`
    assert console(mi, "ptype g_parts") == f"type = {PARTS_BODY}\n"
    assert console(mi, "ptype &g_parts") == f"type = {PARTS_BODY} *\n"
    assert console(mi, "ptype g_ticks") == "type = unsigned int\n"
    assert console(mi, "ptype g_level") == "type = enum level {LOW = -2, MID = 70000, HIGH}\n"
    assert console(mi, "ptype g_window") == "type = char (*)[128]\n"
    assert console(mi, "whatis g_ticks") == "type = ticks_t\n"
    assert console(mi, "whatis g_parts") == "type = struct parts\n"


def test_print_fetches_a_struct_or_array_whole(mi: MiClient) -> None:
    # gdb reads the whole value first: it printed {id = <error: Cannot access...>, ...}
    assert console(mi, "print *g_no_parts") == "error: Cannot access memory at address 0x0"
    assert console(mi, "print g_wide") == (
        "error: value requires 524288 bytes, which is more than max-value-size")
    result, _ = mi.command("-data-evaluate-expression g_wide")
    assert result.results["msg"] == "value requires 524288 bytes, which is more than max-value-size"
    assert console(mi, "print g_wide[1]") == "$1 = 0\n"
    assert console(mi, "whatis *g_no_parts") == "type = struct parts\n"
    assert mi.ok("-var-create vw * g_wide").results["numchild"] == "65536"


def test_a_var_object_of_globals_is_not_tied_to_the_frame(mi: MiClient) -> None:
    # gdb gives thread-id (and a frame to leave) only to one that reads the frame's variables
    created = mi.ok("-var-create vg * g_parts").results
    assert created.get("thread-id") is None
    rows, _ = _children(mi, "-var-list-children --all-values vg")
    assert rows and all("thread-id" not in row for row in rows)
    assert mi.ok("-var-create vb * big").results["thread-id"] == "1"
    assert mi.ok("-var-create vs * scale").results["thread-id"] == "1"
    mi.command("-exec-finish")
    mi.stopped()
    changes = mi.ok("-var-update --all-values *").results["changelist"]
    assert isinstance(changes, List)
    gone = {row["name"] for row in (dict(c.items) for c in changes.values if isinstance(c, Tuple))
            if row.get("in_scope") == "false"}
    assert gone == {"vb", "vs"}  # vg stays in scope: globals outlive the frame


def test_a_float_cast_to_an_integer_saturates_as_gdb(mi: MiClient) -> None:
    # gdb converts through LONGEST, saturating (NaN as the maximum); the type keeps the low
    # bits: (int)1e300 is -1. It wrapped Python's exact integer: (int)1e300 was 0.
    results = [console(mi, f"print {e}") for e in (
        "(int)g_huge", "(long)g_huge", "(int)-g_huge", "(unsigned char)g_huge",
        "(int)(g_huge*g_huge - g_huge*g_huge)", "(int)-2.9")]
    assert results == ["$1 = -1\n", "$2 = 9223372036854775807\n", "$3 = 0\n",
                       "$4 = 255 '\\377'\n", "$5 = -1\n", "$6 = -2\n"]


def test_a_utf8_character_in_a_string_takes_only_its_own_bytes(mi: MiClient) -> None:
    # The decoder took the next three bytes and kept the \v after the character raw.
    assert console(mi, "print g_mixed") == '$1 = "w\u0520\\v"\n'


def test_a_flexible_char_array_member_prints_as_a_string_pointer(mi: MiClient) -> None:
    # gdb shows an array without bound as a pointer to its start: char ones with the string
    address = mi.ok("-data-evaluate-expression &g_parts.tail").results["value"]
    assert isinstance(address, str)
    start = address.split(")")[-1].split()[0]  # (char (*)[]) 0x555... <g_parts+16>
    assert console(mi, "print g_parts.tail") == f'$1 = {start} ""\n'
    assert console(mi, "print/x g_parts").endswith(f"tail = {start}}}\n")


def test_a_null_pointer_var_object_has_its_types_children(mi: MiClient) -> None:
    # gdb counts a pointer's children by type: a null struct pointer lists the members
    # (values unreadable: empty), a null pointer to an array has the array as one child.
    assert mi.ok("-var-create vn * g_no_parts").results["numchild"] == "6"
    rows, _ = _children(mi, "-var-list-children --all-values vn")
    assert [(row["exp"], row["value"]) for row in rows[:3]] == [("id", ""), ("flag", ""), ("wide", "")]
    rows, _ = _children(mi, "-var-list-children --all-values vn.3_anonymous")
    assert [row["exp"] for row in rows] == ["as_int", "as_float"]
    assert mi.ok("-var-create vw * g_window").results["numchild"] == "1"
    rows, _ = _children(mi, "-var-list-children --all-values vw")
    assert [(row["exp"], row["numchild"], row["value"]) for row in rows] == [
        ("*g_window", "128", "[128]")]
    assert mi.ok("-var-create vv * (void*)0").results["numchild"] == "0"


def test_mi_variable_lists_leave_out_constants_as_gdb(builder: Builder) -> None:
    # gdb's -stack-list-* skip a variable described by DW_AT_const_value (LOC_CONST);
    # info locals shows it. Ours listed it.
    prog = builder.build("gen_values", flags=("-g", "-O2"))
    client = MiClient(["-i=mi", "-q", str(prog)], cwd=prog.parent)
    try:
        client.prompt()
        client.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'constant')}")
        client.command("-exec-run")
        client.stopped()
        listed = client.ok("-stack-list-locals 1").results["locals"]
        assert isinstance(listed, List) and listed.values == []
        variables = client.ok("-stack-list-variables 1").results["variables"]
        assert isinstance(variables, List)
        assert [dict(v.items)["name"] for v in variables.values if isinstance(v, Tuple)] == ["n"]
        assert console(client, "info locals") == "fixed = 41\n"
    finally:
        client.close()


def test_a_gcc_copy_of_a_function_is_named_as_in_the_source(builder: Builder) -> None:
    # gdb names frames and breakpoints from the DWARF subprogram: `scaled`, not the
    # symbol of gcc's copy, `scaled.constprop.0`.
    prog = builder.build("gen_values", flags=("-g", "-O2"))
    symbols = subprocess.run(["nm", str(prog)], capture_output=True, text=True).stdout
    if "scaled." not in symbols:
        pytest.skip("this gcc made no copy of scaled()")
    client = MiClient(["-i=mi", "-q", str(prog)], cwd=prog.parent)
    try:
        client.prompt()
        bkpt = client.ok("-break-insert scaled").results["bkpt"]
        assert isinstance(bkpt, Tuple) and bkpt["func"] == "scaled"
        bkpt = client.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'scaled')}").results["bkpt"]
        assert isinstance(bkpt, Tuple) and bkpt["func"] == "scaled"
        client.command("-exec-run")
        frame = client.stopped().results["frame"]
        assert isinstance(frame, Tuple) and frame["func"] == "scaled"
        assert console(client, "bt 1").startswith("#0  scaled (")
    finally:
        client.close()


def test_only_a_plain_char_pointer_prints_without_its_type(mi: MiClient) -> None:
    # gdb drops `(type)` before a string pointer only for a `char *` that is no typedef
    assert console(mi, "print g_bytes").startswith('$1 = (unsigned char *) 0x')
    assert console(mi, "print g_text").startswith('$2 = (text_t) 0x')
    assert console(mi, "print (const char *)g_text").startswith('$3 = 0x')


def test_a_value_is_refused_by_its_size_and_its_first_unreadable_page(mi: MiClient) -> None:
    # char (*)[2^31]: sizeof reads -2147483648 (an int, as gdb's), still far too big;
    # a 64 KiB view from a global reads past the data: gdb names the page it could not read
    assert console(mi, "print *g_huge_view") == (
        "error: value requires 2147483648 bytes, which is more than max-value-size")
    failure = console(mi, "print *g_page_view")
    assert failure.startswith("error: Cannot access memory at address 0x")
    address = int(failure.rsplit(" ", 1)[1], 16)
    start = int(str(mi.ok("-data-evaluate-expression g_page_view").results["value"]).split()[0], 16)
    assert address % 4096 == 0 and start < address < start + 65536


def test_repeats_quote_and_enum_values_as_gdb(mi: MiClient) -> None:
    # a repeated ' inside a string is quoted with the string's quoter: ''' (it was '\'');
    # an enum value no enumerator names prints as gdb's LONGEST (it was 18446744073709551615)
    assert console(mi, "print g_quotes") == """$1 = ''' <repeats 12 times>, "\\000\\000\\000"\n"""
    assert console(mi, "print (enum wide)-1") == "$2 = -1\n"
    # a negative value no enumerator names stays as it is
    assert console(mi, "print (enum level)-5392") == "$3 = -5392\n"


def test_a_struct_with_no_location_is_optimized_out_whole(builder: Builder) -> None:
    prog = builder.build("gen_values", flags=("-g", "-O2"))
    client = MiClient(["-i=mi", "-q", str(prog)], cwd=prog.parent)
    try:
        client.prompt()
        client.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'ignores')}")
        client.command("-exec-run")
        client.stopped()
        # gdb: the whole value; it printed {id = <optimized out>, flag = <optimized out>, ...}
        assert console(client, "print unused") == "$1 = <optimized out>\n"
    finally:
        client.close()


def test_a_type_name_is_an_expression_for_ptype_whatis_and_sizeof(mi: MiClient) -> None:
    # gdb's grammar takes a type as the whole expression; it was a syntax error
    assert console(mi, "ptype enum level") == "type = enum level {LOW = -2, MID = 70000, HIGH}\n"
    assert console(mi, "whatis struct parts") == "type = struct parts\n"
    assert console(mi, "ptype unsigned int") == "type = unsigned int\n"
    assert console(mi, "whatis counter_t *") == "type = counter_t *\n"
    # whatis of a bare typedef name unrolls one level; ptype all of them
    assert console(mi, "whatis ticks_t") == "type = counter_t\n"
    assert console(mi, "ptype ticks_t") == "type = unsigned int\n"
    assert console(mi, "print sizeof(struct parts)") == "$1 = 24\n"
    assert console(mi, "print ticks_t") == "error: Attempt to use a type name as an expression"
    assert console(mi, "ptype union nosuch") == "error: No union type named nosuch."


def test_output_refuses_a_value_over_max_value_size_as_print(mi: MiClient) -> None:
    # output printed the 512 KiB array; gdb fetches it whole first, as print and call do
    assert console(mi, "output g_wide") == (
        "error: value requires 524288 bytes, which is more than max-value-size")
    assert console(mi, "output/x g_level") == "0x11170"


def test_a_window_of_a_huge_array_makes_only_its_children(mi: MiClient) -> None:
    # Every one of g_wide's 65536 elements was made before the window was cut (a minute
    # under load); only the window's are made now (tests/unit/adapters/mi/test_varobj_window.py
    # counts them), and the rest when named: -var-delete counts gdb's 65536.
    mi.ok("-var-create vw * g_wide")
    rows, more = _children(mi, "-var-list-children --all-values vw 0 12")
    assert [row["name"] for row in rows] == [f"vw.{i}" for i in range(12)] and more == "1"
    rows, more = _children(mi, "-var-list-children vw 65534 65540")
    assert [row["exp"] for row in rows] == ["65534", "65535"] and more == "0"
    assert mi.ok("-var-info-num-children vw").results["numchild"] == "65536"
    assert mi.ok("-var-evaluate-expression vw.65535").results["value"] == "0"
    # a full listing afterwards keeps the ones made and lists all, in order
    mi.ok("-var-create vp * g_parts")
    _children(mi, "-var-list-children vp 2 4")
    rows, _ = _children(mi, "-var-list-children vp")
    assert [row["exp"] for row in rows][:3] == ["id", "flag", "wide"]
    assert mi.ok("-var-evaluate-expression vw.100").results["value"] == "0"  # gdb made it too
    assert mi.ok("-var-delete vw").results["ndeleted"] == "65537"


def test_an_aggregate_optimized_out_is_whole_in_print_and_member_by_member_in_mi(
        builder: Builder) -> None:
    # gdb's print and info locals check the whole value first (value_check_printable), MI
    # prints each member; a member partly in registers lists its parts (it was all gone)
    source = "dead_aggregates.c"
    prog = builder.build("dead_aggregates", flags=("-g", "-O2"))
    client = MiClient(["-i=mi", "-q", str(prog)], cwd=prog.parent)
    try:
        client.prompt()
        client.ok(f"-break-insert {source}:{marker_line(source, 'dead')}")
        client.command("-exec-run")
        client.stopped()
        assert console(client, "print v") == "$1 = <optimized out>\n"
        w = "{in = {a = <optimized out>, b = 21}, c = <optimized out>}"
        assert console(client, "print w") == f"$2 = {w}\n"
        assert console(client, "info locals") == f"v = <optimized out>\nr = 9260\nw = {w}\n"
        locals_ = client.ok("-stack-list-locals 1").results["locals"]
        assert isinstance(locals_, List)
        values = [dict(item.items)["value"] for item in locals_.values if isinstance(item, Tuple)]
        assert values == ["{a = <optimized out>, b = <optimized out>}", "9260", w]
        assert client.ok("-data-evaluate-expression w.in").results["value"] == (
            "{a = <optimized out>, b = 21}")
    finally:
        client.close()
