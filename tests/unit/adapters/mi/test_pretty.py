"""gdb's `print pretty on` layout read from a one-line value (the texts are gdb 13's)."""

from __future__ import annotations

from aliceserver.adapters.mi.pretty import pretty_text


def test_struct_members_one_per_line_arrays_on_one() -> None:
    text = '{x = 1, arr = {0, 0, 0}, s = 0x4010 "a = {b, c}", c = 123 \'{\', f = {int (int)} 0x40 <f>}'
    assert pretty_text(text, "S") == (
        '{\n  x = 1,\n  arr = {0, 0, 0},\n  s = 0x4010 "a = {b, c}",\n'
        "  c = 123 '{',\n  f = {int (int)} 0x40 <f>\n}"
    )


def test_structs_in_an_array_and_a_printer_map() -> None:
    assert pretty_text("{{x = 1}, {x = 3}}", "Point [2]") == "{{\n    x = 1\n  }, {\n    x = 3\n  }}"
    assert pretty_text('std::map with 1 element = {["a\\"b"] = {x = 7}}', "M") == (
        'std::map with 1 element = {\n  ["a\\"b"] = {\n    x = 7\n  }\n}'
    )


def test_base_classes_and_members_of_the_class() -> None:
    assert pretty_text("{<Base> = {b = 1}, d = 2}", "Derived") == (
        "{\n  <Base> = {\n    b = 1\n  }, \n  members of Derived:\n  d = 2\n}"
    )


def test_values_without_structs_are_unchanged() -> None:
    for text in ("5", '"x = {y}"', "{1, 2, 3}", "{<No data fields>}", "(int (*)(int)) 0x1 <f>", "{0 <repeats 16 times>}"):
        assert pretty_text(text, "T") == text


def test_a_base_class_below_the_top_keeps_the_line() -> None:
    """gdb names the class after its bases (`members of Inner:`): the text does not say it."""
    text = "{inner = {<Base> = {b = 1}, d = 2}, e = 3}"
    assert pretty_text(text, "Outer") == text


def test_a_printers_text_with_commas_is_one_member() -> None:
    """`std::vector of length 0, capacity 0` says `, ` as members are split: one member
    still, as are a printer's `get() = ` child and a base named with template arguments."""
    text = "{before = 0, items = std::vector of length 2, capacity 2 = {1, 2}, up = {get() = 0x10}}"
    assert pretty_text(text, "W") == (
        "{\n  before = 0,\n  items = std::vector of length 2, capacity 2 = {1, 2},\n  up = {\n    get() = 0x10\n  }\n}"
    )
    assert pretty_text("{{a = std::vector of length 0, capacity 0}}", "W [1]") == (
        "{{\n    a = std::vector of length 0, capacity 0\n  }}"
    )


def test_a_print_cut_short_leaves_its_blocks_open() -> None:
    """gdb stops a struct's print at an unreadable container's first element: the blocks
    opened since end at the error, unclosed, and the struct around goes on."""
    error = "<error reading variable: Cannot access memory at address 0x10>"
    text = "{inner = {before = 0, items = std::vector of length 5, capacity 5 = {" + error + ", tail = 7}"
    assert pretty_text(text, "Outer") == (
        "{\n  inner = {\n    before = 0,\n    items = std::vector of length 5, capacity 5 = {" + error
        + ",\n  tail = 7\n}"
    )
    assert pretty_text("{a = 1, b = " + error + "}", "S") == "{\n  a = 1,\n  b = " + error + "\n}"
    twice = "{p = {x = {" + error + ", q = {y = {" + error + "}"
    assert pretty_text(twice, "S") == twice  # which blocks each error ended: not in the text


def test_the_classes_given_name_bases_below_the_top() -> None:
    """VariableInfo.member_classes names each class shown with bases and then fields, in
    the order the text opens them; a list that does not fit leaves the line."""
    text = "{inner = {<Base> = {b = 1}, d = 2}, e = 3}"
    assert pretty_text(text, "Outer", ["Inner"]) == (
        "{\n  inner = {\n    <Base> = {\n      b = 1\n    }, \n    members of Inner:\n    d = 2\n  },\n  e = 3\n}"
    )
    assert pretty_text(text, "Outer", ["Inner", "Spare"]) == text
    two = "{<A> = {a = 1}, x = {<B> = {b = 2}, y = 3}}"
    assert pretty_text(two, "T", ["Top", "X"]) == (
        "{\n  <A> = {\n    a = 1\n  }, \n  members of Top:\n  x = {\n    <B> = {\n      b = 2\n    }, \n"
        "    members of X:\n    y = 3\n  }\n}"
    )


def test_a_base_named_with_template_arguments_is_one_element() -> None:
    text = "{<Holder<int, 2>> = {held = {5, 0}}, second = 0 '\\000'}"
    assert pretty_text(text, "Pair<int, char>") == (
        "{\n  <Holder<int, 2>> = {\n    held = {5, 0}\n  }, \n  members of Pair<int, char>:\n  second = 0 '\\000'\n}"
    )
