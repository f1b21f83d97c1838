"""A C++ class's own operators in expressions, called in the program as gdb 13 calls them
(value_x_binop, value_x_unop): `t[1]`, `t["b"]` (the overload by argument), `*t`, `w->vals`,
`t == t`, `-a`, `!a`, `a += 1` (its reference returned), free functions `a + b` and
`a < b`, `t.operator[](2)` spelled out, and gdb's errors where it finds none (`2 * a`: only
the left operand's class is asked; `s == "hi"`: no operator so named). They were refused
("Function calls are not supported in expressions", "Structure has no component named
operator=="). A method of a temporary (the iterator `items.begin()` returns) runs on a
copy in the program's memory, as gdb's; a call's value has its type without the typedef
its declaration names (`(Item &)`, `(Item *)`), as gdb's call_function_by_hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import output_like_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.gdb import gdb_path

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

MAIN = marker_line(PROGRAMS_DIR / "cpp_operators.cpp", "main")
COMMANDS = [f"break cpp_operators.cpp:{MAIN}", "run",
            "print t[1]", 'print t["b"]', "print *t", "print t == t", "print t + 1", "print w->vals[2]",
            "print t.operator[](2)", "whatis t[1]", "print t[1] + t[2]",
            "print a + b", "print a < b", "print b < a", "print -a", "print !a", "print 2 * a",
            "print (a += 1).y", "print a", "whatis a += 1", "whatis a + b", "ptype a < b", 'print s == "hi"', "print s + s",
            "print a - b", "print a.operator()(1, 0)", "print operator+(a, b)",
            "print ns::boom(0)"]  # fmt: skip (a fault: gdb names the call `ns::boom(int*)`)


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_operators", CPP_FLAGS)


def test_operators_like_gdb(program: Path) -> None:
    shown = output_like_gdb(program, COMMANDS)
    assert "$1 = 20" in shown and "$4 = true" in shown and "{x = 2, y = 3}" in shown
    assert 'No symbol "operator==" in current context.' in shown
    assert "(ns::boom(int*)) will be abandoned." in shown


TEMPLATE_MAIN = marker_line(PROGRAMS_DIR / "cpp_template_names.cpp", "main")
TEMPLATE_COMMANDS = [f"break cpp_template_names.cpp:{TEMPLATE_MAIN}", "run",
                     "print Counter<int>::count", "print Counter<int>::limit", "print Counter<double>::count",
                     "print twice<int>", "print twice<double>(2.5)", "print &twice<int>", "whatis twice<int>",
                     "print std::numeric_limits<int>::digits", "print std::vector<int>::nothing",
                     "print Nope<int>::x", "print c.value < 3", "print c.value > 3",
                     "ptype pool", "whatis pool", "whatis &pool", "whatis pinned_ref", "whatis &pinned",
                     "print twice<long>(2)", "print std::get<0>(c)", "print nosuch<int>(c)"]  # fmt: skip


def test_template_names_like_gdb(builder: Builder) -> None:
    """`twice<int>` names the instance (it was `twice < int > ...`, "No symbol"), and
    `Counter<int>::count` the class template's static member; a comparison stays one. A
    class template over a pointer type: its name as written (`Pool<Node*, 4>`, not `Node
    *`), ptype's `T` only where a type is T itself (`Node **slots(void)`), `* const&`."""
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_template_names", CPP_FLAGS)
    shown = output_like_gdb(program, TEMPLATE_COMMANDS)
    assert "$1 = 3" in shown and "<twice<int>(int)>" in shown and "= 5\n" in shown
    # a name written with its template arguments against it is one name to gdb's lexer
    # (find_template_name_end), told so where it names nothing (was `No symbol "get"`)
    assert 'No symbol "get<0>" in namespace "std".' in shown and 'No symbol "twice<long>" in current' in shown


TEMPORARY_MAIN = marker_line(PROGRAMS_DIR / "cpp_temporaries.cpp", "main")
TEMPORARY_COMMANDS = [f"break cpp_temporaries.cpp:{TEMPORARY_MAIN}", "run",
                      "print *items.begin()", "print items.begin()->name",  # (operator-> not emitted)
                      "print *(items.end() - 1)",
                      "print items.front()", "print spare_item()", "whatis $",
                      "whatis spare_item()", "print items.at(1).weight"]  # fmt: skip


def test_temporaries_and_typedef_returns_like_gdb(builder: Builder) -> None:
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_temporaries", CPP_FLAGS)
    shown = output_like_gdb(program, TEMPORARY_COMMANDS)
    assert '$1 = (Item &) @0x' in shown and ': {name = "a", weight = 3}' in shown
    assert '$2 = (Item &) @0x' in shown and ': {name = "b", weight = 5}' in shown
    assert "$4 = (Item *) 0x" in shown and "type = Item *\ntype = ItemPtr\n$5 = 5" in shown


STD_MAIN = marker_line(PROGRAMS_DIR / "cpp_std_calls.cpp", "main")
STD_COMMANDS = [f"break cpp_std_calls.cpp:{STD_MAIN}", "run",
                "print *coupon", "whatis *coupon", "print counter.get()", "print fixed.get()",
                'print stock["apple"]', "print stock[key]", 'print stock.at("apple")',
                'print stock.count("pear")', "print stock[1]", "print coupon.value()"]  # fmt: skip


def test_const_overloads_and_literal_keys_like_gdb(builder: Builder) -> None:
    """A method's constness ranks it as gdb's CV conversion of `this`: `*coupon` calls
    std::optional's `operator*() &`, the one emitted, not the `const&` declared first (it
    said "Cannot evaluate function -- may be inlined"), and `get()` is the const or the
    non-const one by the object. A literal key of a std::map<std::string, ...> gets gdb's
    words for where gdb stops (it binds the literal to the `key_type&&` overload, never
    emitted: "Could not find operator[]."; `at`: "Cannot evaluate function -- may be
    inlined"), not "Cannot resolve method ... to any overloaded instance"."""
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_std_calls", CPP_FLAGS)
    shown = output_like_gdb(program, STD_COMMANDS)
    assert "$1 = (double &) @0x" in shown and ": 2.5\ntype = double &\n$2 = 105\n$3 = 7\n" in shown
    assert shown.count("Could not find operator[].") == 2 and ") @0x" in shown.split("$4 = ")[1]
    assert shown.count("Cannot evaluate function -- may be inlined") == 3


WEIGH = marker_line(PROGRAMS_DIR / "cpp_std_calls.cpp", "weigh")


def test_step_into_shared_ptr_arrow_like_gdb(builder: Builder) -> None:
    """A frame of `std::__shared_ptr_access<Item, (__gnu_cxx::_Lock_policy)2, false,
    false>::operator->` shows its name without `() const`, as gdb's cp_remove_params (the
    cast value argument was taken for a function type, which gdb's parser refuses and
    keeps whole), and finish shows the pointer it returns with its `(element_type *) `."""
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_std_calls", CPP_FLAGS)
    shown = output_like_gdb(program, [f"break cpp_std_calls.cpp:{WEIGH}", "run", "step", "bt", "finish"])
    arrow = "std::__shared_ptr_access<Item, (__gnu_cxx::_Lock_policy)2, false, false>::operator->"
    assert f"\n{arrow} (this=0x" in shown and f"#0  {arrow} (this=0x" in shown
    assert f"Value returned is $1 = ({arrow[: -len('operator->')]}element_type *) 0x" in shown


def test_bool_literals_and_no_frame_language_like_gdb(builder: Builder) -> None:
    """C++'s `true` and `false` (gdb's TRUEKEYWORD, FALSEKEYWORD): they were `No symbol
    "true" in current context.`. Before `run` and after the program ended there is no
    frame: expressions are read in the language of main's unit, C++ here (after the end
    they were read in the held loader's frame, as C)."""
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_std_calls", CPP_FLAGS)
    literals = ["whatis true", "print true", "print !true", "print true + 1", "print false || true", "print (int)true"]
    shown = output_like_gdb(program, [*literals, f"break cpp_std_calls.cpp:{STD_MAIN}", "run", *literals,
                                      "print fixed.get() == 7", "continue", *literals])  # fmt: skip
    assert shown.count("type = bool\n") == 3 and "$1 = true\n$2 = false\n$3 = 2\n$4 = true\n$5 = 1\n" in shown


CPLUS_WORDS = ["print true and false", "print not true", "print 1 bitor 2", "print compl 0", "print 5 xor 1",
               "print true or false", "print 1 not_eq 2", "print alignof(int)", "print alignof(Counter)",
               "print int(3)", "print char(65)", "print decltype(counter)", "print new int", "print delete p",
               "print template", "print operator", "print alignof(counter)"]  # fmt: skip


def test_cplus_keywords_like_gdb(builder: Builder) -> None:
    """C++'s alternative tokens (`and`, `not`, `bitor`, `compl`, `not_eq`...) and `alignof`, as
    gdb's lexer reads them in C++ (they were names: `No symbol "not"`), and gdb's syntax
    errors where its grammar has no rule (`int(3)`, `new int`, `decltype(x)`)."""
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_std_calls", CPP_FLAGS)
    shown = output_like_gdb(program, [f"break cpp_std_calls.cpp:{STD_MAIN}", "run", *CPLUS_WORDS])
    assert "$1 = false\n$2 = false\n$3 = 3\n$4 = -1\n$5 = 4\n$6 = true\n$7 = true\n$8 = 4\n$9 = 4\n" in shown
    assert "A syntax error in expression, near `3)'." in shown


MAP_KEYS = marker_line(PROGRAMS_DIR / "cpp_map_keys.cpp", "here")


def test_a_literal_key_to_an_emitted_rvalue_overload_like_gdb(builder: Builder) -> None:
    """Where the program calls std::map's operator[](key_type&&), gdb binds the literal to
    it, finds its code and fails casting the literal to std::string: "Invalid cast." (ours
    said "Cannot resolve method ...::operator[] to any overloaded instance"). An operator
    whose overload has no code is gdb's "Could not find operator[]." (value_x_binop), also
    under whatis; ours said "Cannot evaluate function -- may be inlined"."""
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_map_keys", CPP_FLAGS)
    shown = output_like_gdb(program, [f"break cpp_map_keys.cpp:{MAP_KEYS}", "run", 'print stock["apple"]',
                                      "print stock[key]", 'print stock.count("apple")', "whatis stock[key]",
                                      "print stock.count(key)"])  # fmt: skip
    assert shown.count("Invalid cast.") == 2 and shown.count("Could not find operator[].") == 2, shown
    assert "$1 = 1" in shown


MADE_UP = marker_line(PROGRAMS_DIR / "cpp_made_up.cpp", "here")


def test_methods_on_made_up_values_like_gdb(builder: Builder) -> None:
    """whatis, ptype and sizeof call nothing: a method or operator on another call's value
    (not in memory there) fails as gdb's value_addr does, "Attempt to take address of value
    not located in memory." (ours named a type); sizeof(*x) of a class is gdb's "Attempt to
    take contents of a non-pointer value." (ours sized operator*'s result); a method never
    emitted is "Cannot evaluate function -- may be inlined" there too. print calls them."""
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_made_up", CPP_FLAGS)
    shown = output_like_gdb(program, [
        f"break cpp_made_up.cpp:{MADE_UP}", "run", "whatis *items.begin()", "whatis items.begin().base()",
        "whatis items.begin()->price", "ptype items.begin()->price", "print sizeof(*featured)",
        "print sizeof(*items.begin())", "print sizeof(*items.data())", "whatis items[0].total()",
        "print *items.begin()", "print items.begin()->price", "print sizeof(items[1])"])  # fmt: skip
    assert shown.count("Attempt to take address of value not located in memory.") == 4, shown
    assert shown.count("Attempt to take contents of a non-pointer value.") == 2, shown
    assert "$1 = 4\ntype = int\n$2 = (Item &) @0x" in shown and "$3 = 3\n$4 = 4\n" in shown, shown


QUALIFIED = marker_line(PROGRAMS_DIR / "cpp_qualified_members.cpp", "here")


def test_base_members_named_through_the_object_like_gdb(builder: Builder) -> None:
    """`n.Shape::id` (a member a derived class hides), `p->Shape::id`, `n.Square::side`: the
    member of that class's subobject, as gdb's; they were "A syntax error in expression,
    near `::id'.". A qualifier that names no type is gdb's syntax error at the end, a field
    that class lacks gdb's "There is no field named"."""
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_qualified_members", CPP_FLAGS)
    shown = output_like_gdb(program, [
        f"break cpp_qualified_members.cpp:{QUALIFIED}", "run", "print n.Shape::id", "print n.id",
        "print p->Shape::id", "print n.Square::side", "whatis n.Named::name", "print n.Shape::id = 3",
        "print n.Nope::id", "print n.Square::nosuch"])  # fmt: skip
    assert "$1 = 1\n$2 = 7\n$3 = 1\n$4 = 2\ntype = std::string\n$5 = 3\n" in shown, shown
