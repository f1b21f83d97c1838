"""Demangling and name keys."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.symbols.dwarf import names, rust_demangle
from aliceserver.errors import TargetError


@pytest.mark.parametrize(
    ("mangled", "expected"),
    [
        ("_RNvCs1234_7mycrate4main", "mycrate::main"),
        ("_RNvNtCs1234_7mycrate3foo3bar", "mycrate::foo::bar"),
        ("_RNvMNtCs1234_7mycrate3fooNtB2_3Foo3new", "<mycrate::foo::Foo>::new"),
        ("_RINvCs1234_7mycrate7genericlEB2_", "mycrate::generic::<i32>"),
        ("_RNCNvCs1234_7mycrate4main0B3_", "mycrate::main::{closure#0}"),
        ("_RNvXCs1234_7mycrateNtB2_3FooNtNtCs5678_4core3fmt7Display3fmt",
         "<mycrate::Foo as core::fmt::Display>::fmt"),
        ("_RINvCs1234_7mycrate1fRShEB2_", "mycrate::f::<&[u8]>"),
    ],
)  # fmt: skip
def test_rust_v0(mangled: str, expected: str) -> None:
    assert rust_demangle.demangle_v0(mangled) == expected


def test_rust_v0_rejects_garbage() -> None:
    for bad in ("_R", "_RNvB9_3foo", "_RZ", "_RNvCs_", "_RB_"):
        with pytest.raises(TargetError):
            rust_demangle.demangle_v0(bad)


def test_rust_legacy() -> None:
    symbol = "_ZN4core3fmt9Formatter3pad17h0123456789abcdefE"
    assert rust_demangle.is_legacy_rust(symbol)
    assert names.Demangler().demangle(symbol) == "core::fmt::Formatter::pad"
    assert rust_demangle.demangle_legacy("_ZN9$LT$a$GT$2fn17h0123456789abcdefE") == "<a>::fn"


def test_rust_legacy_trait_impl_names_keep_their_path() -> None:
    """`..` is a legacy symbol's `::`: the name is read whole, a `.llvm.N` suffix ignored
    (a frame in Vec's Index impl showed its mangled name)."""
    symbol = (
        "_ZN75_$LT$usize$u20$as$u20$core..slice..index..SliceIndex$LT$$u5b$T$u5d$$GT$$GT$"
        "5index17hf7f26f44014811f8E"
    )
    demangler = names.Demangler()
    assert demangler.demangle(symbol) == "<usize as core::slice::index::SliceIndex<[T]>>::index"
    assert demangler.demangle(symbol + ".llvm.12345") == "<usize as core::slice::index::SliceIndex<[T]>>::index"
    assert demangler.demangle("_ZN3std2rt10lang_start17h0123456789abcdefE.llvm.9") == "std::rt::lang_start"


def test_cxx_keys() -> None:
    demangler = names.Demangler()
    text = demangler.demangle("_Z3maxIiET_S0_S0_")
    if text == "_Z3maxIiET_S0_S0_":
        pytest.skip("libstdc++ is not available")
    assert names.display_name(text) == "max<int>(int, int)"
    keys = names.lookup_keys("_ZN2ns5Class6methodEi", demangler.demangle("_ZN2ns5Class6methodEi"))
    assert {"ns::Class::method", "Class::method", "method"} <= keys
    assert names.normalize_query(" ns::Class::method( int ) ") == ("ns::Class::method", "( int )")
    assert names.split_qualified("a::operator<<") == ["a", "operator<<"]
    assert names.strip_signature("std::vector<int>::operator()(int) const") == (
        "std::vector<int>::operator()", "(int)")  # fmt: skip
