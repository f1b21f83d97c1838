"""A `break` parameter list spelled as the demangler spells the function's (gdb's
cp_canonicalize_string_no_typedefs): typedefs replaced, built-in types named one way,
`const` after what it qualifies; forms it does not read kept as typed."""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.paramtypes import canonical_parameters

STRING = "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
TYPEDEFS = {"TimeStamp": "int64_t", "int64_t": "long int", "std::string": STRING, "cstr": "const char *",
            "Loop": "Loop"}  # fmt: skip


def spelled(params: str) -> str:
    return canonical_parameters(params, TYPEDEFS.get)


def test_typedefs_are_replaced_through_their_chain() -> None:
    assert spelled("(TimeStamp)") == "(long)"
    assert spelled("(const std::string&, std::string *)") == f"({STRING} const&, {STRING}*)"
    assert spelled("(cstr, const cstr)") == "(char const*, char const* const)"
    assert spelled("(Loop)") == "(Loop)"  # a typedef naming itself ends


def test_builtin_types_have_one_name() -> None:
    assert spelled("(long int, unsigned, short unsigned int, long long unsigned int)") == (
        "(long, unsigned int, unsigned short, unsigned long long)"
    )
    assert spelled("(signed char, unsigned char, char, long double, signed)") == (
        "(signed char, unsigned char, char, long double, int)"
    )


def test_const_goes_after_what_it_qualifies() -> None:
    assert spelled("(const Node*, Node const *, volatile int&&)") == "(Node const*, Node const*, int volatile&&)"


def test_forms_not_read_are_kept() -> None:
    for params in ("()", "(void)", "(int (*)(int))", "(char[3])", "(int, ...)", "(std::vector<TimeStamp>)"):
        assert spelled(params) == params
