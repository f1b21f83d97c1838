"""Var object helpers: which pointers gdb gives a `*p` child although it prints a string."""

from __future__ import annotations

import pytest

from aliceserver.adapters.mi.varobj import is_char_pointer


@pytest.mark.parametrize(
    "type_name", ["char *", "const char *", "unsigned char *", "const volatile char *", "wchar_t *"]
)
def test_char_pointers(type_name: str) -> None:
    assert is_char_pointer(type_name)


@pytest.mark.parametrize("type_name", ["char", "char **", "int *", "char [4]", "struct point *", "void *"])
def test_not_char_pointers(type_name: str) -> None:
    assert not is_char_pointer(type_name)
