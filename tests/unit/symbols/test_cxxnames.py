"""gdb's canonical C++ type names (cxxnames.py): each expected spelling is what gdb 13
printed for g++ 12's DW_AT_name of the same type."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.symbols.dwarf.cxxnames import canonical_type_name

_STRING = "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
CASES = [
    ("pair<const int, int>", "pair<int const, int>"),
    (f"pair<const {_STRING}, int>", f"pair<{_STRING} const, int>"),
    ("vector<char const*, std::allocator<char const*> >", "vector<char const*, std::allocator<char const*> >"),
    ("function<int(int)>", "function<int(int)>"),
    ("array<int, 3>", "array<int, 3>"),
    ("Box<long unsigned int, 1>", "Box<unsigned long, 1>"),
    ("Flag<true>", "Flag<true>"),
    ("Ptr<(& g_target)>", "Ptr<&g_target>"),
    ("Ptr<0>", "Ptr<0>"),
    ("I<-1>", "I<-1>"),
    ("Ch<'a'>", "Ch<(char)'a'>"),
    ("En<(geo::Kind)1>", "En<(geo::Kind)1>"),
    ("UL<123456789012345>", "UL<123456789012345>"),
    ("Many<>", "Many<>"),
    ("Many<int, char, Two<int, int> >", "Many<int, char, Two<int, int> >"),
    ("Two<(anonymous namespace)::Hidden, short unsigned int>", "Two<(anonymous namespace)::Hidden, unsigned short>"),
    ("Two<char const (*)[2], int>", "Two<char const (*) [2], int>"),
    ("pair<char const (&)[2], int>", "pair<char const (&) [2], int>"),
    ("Two<char* const*, int const* const>", "Two<char* const*, int const* const>"),
    ("Two<int (*)(int), void (*)()>", "Two<int (*)(int), void (*)()>"),
    ("Two<int [3], int (* (*)(int))(long int)>", "Two<int [3], int (*(*)(int))(long)>"),
    ("Two<int geo::Plain::*, int (geo::Plain::*)(int) const>", "Two<int geo::Plain::*, int (geo::Plain::*)(int) const>"),
    ("Two<int volatile, int const volatile*>", "Two<int volatile, int const volatile*>"),
    ("Two<long long int, long long unsigned int>", "Two<long long, unsigned long long>"),
    ("Two<long double, __int128>", "Two<long double, __int128>"),
    ("Two<unsigned char, signed char>", "Two<unsigned char, signed char>"),
    ("Two<std::pair<int, int>*, std::pair<int const, int>&>", "Two<std::pair<int, int>*, std::pair<int const, int>&>"),
    ("Two<void, int (*)(Two<int, int>*, ...)>", "Two<void, int (*)(Two<int, int>*, ...)>"),
    ("_M_not_empty_function<use(geo::Plain&)::<lambda(int)> >", "_M_not_empty_function<use(geo::Plain&)::<lambda(int)> >"),
]  # fmt: skip


@pytest.mark.parametrize(("written", "shown"), CASES)
def test_canonical_names_are_gdbs(written: str, shown: str) -> None:
    assert canonical_type_name(written) == shown


def test_plain_and_unparsable_names_stay() -> None:
    for name in ("Plain", "decltype(nullptr)", "a<b", "operator<"):
        assert canonical_type_name(name) == name
