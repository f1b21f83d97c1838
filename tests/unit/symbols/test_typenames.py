"""The type-name index (typenames.py, typekeys.py, typefind.py) on a C++ program built at
test time: qualified, nested and template names found under any spelling, misses answered
without a DIE walk, type units, the on-disk cache, and C programs left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.typefind import IndexedTypes
from aliceserver.debuggers.symbols.dwarf.typekeys import type_key
from aliceserver.debuggers.symbols.dwarf.typenames import TypeNameIndex
from aliceserver.debuggers.symbols.dwarf.types import StructType, Type, strip, type_name
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx

needs_cxx = pytest.mark.skipif(find_cxx() is None, reason="g++ not installed")
FLAGS = {
    "default": ("-g", "-O0"),
    "dwarf4-type-units": ("-g", "-gdwarf-4", "-fdebug-types-section"),
    "dwarf5-type-units": ("-g", "-gdwarf-5", "-fdebug-types-section"),
}


@pytest.fixture(scope="module", params=list(FLAGS))
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if find_cxx() is None:
        pytest.skip("g++ not installed")
    builder = MoreBuilder(tmp_path_factory.mktemp("typenames"))
    return builder.build_cpp("cpp_typenames", FLAGS[request.param])


def symbols_of(path: Path, cache: IndexCache | None = None) -> ModuleSymbols:
    image = ElfImage.load(str(path))
    symbols = ModuleSymbols(image)
    symbols.type_index = TypeNameIndex(str(path), image.build_id, cache)
    return symbols


def members(t: Type | None) -> list[str | None]:
    assert t is not None
    st = strip(t)
    assert isinstance(st, StructType)
    return [m.name for m in st.members]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("std::vector<int, std::allocator<int> >", "std::vector<int,std::allocator<int>>"),
        ("std::pair<const int, long>", "std::pair<int const, long int>"),
        ("std::map<long unsigned int, const char *>", "std::map<unsigned long,char const*>"),
        ("unsigned", "unsigned int"),
        ("short unsigned int", "unsigned short"),
        ("long long int", "long long"),
        ("__int128 unsigned", "unsigned __int128"),
        ("void (*)(const int, char const *)", "void(*)(int const,const char*)"),
        ("(anonymous namespace)::X", "(anonymous namespace) :: X"),
    ],
)  # fmt: skip
def test_spellings_of_one_type_have_one_key(one: str, other: str) -> None:
    assert type_key(one) == type_key(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [("signed char", "char"), ("unsigned long", "long"), ("const char *", "char *const"),
     ("a::b<int>", "a::b<long>"), ("int *", "int &")],
)  # fmt: skip
def test_different_types_have_different_keys(one: str, other: str) -> None:
    assert type_key(one) != type_key(other)


def test_qualified_nested_and_template_names_are_found(program: Path) -> None:
    symbols = symbols_of(program)

    def name(text: str) -> str | None:
        found = symbols.find_type(text)
        return None if found is None else type_name(found)

    assert members(symbols.find_type("outer::inner::Leaf")) == ["value"]
    assert members(symbols.find_type("outer::inner::Leaf::Nested")) == ["depth"]
    assert name("outer::inner::Leaf::size_type") == "outer::inner::Leaf::size_type"
    assert name("outer::inner::Leaf::Colour") == "outer::inner::Leaf::Colour"
    assert name("enum outer::inner::Leaf::Colour") == "outer::inner::Leaf::Colour"
    assert name("struct outer::inner::Leaf::Colour") is None  # an enum, not a struct
    # Templates under gdb's spelling, g++'s, and without spaces.
    for spelling in ("outer::Box<const char *, 2>", "outer::Box<char const*, 2>",
                     "outer::Box<const char*,2>"):  # fmt: skip
        assert members(symbols.find_type(spelling)) == ["items"]
    assert members(symbols.find_type("outer::Box<unsigned long, 1>")) == ["items"]
    vector = symbols.find_type("std::vector<int,std::allocator<int>>")
    assert vector is not None
    assert type_name(vector) == "std::vector<int, std::allocator<int> >"
    assert name("std::vector<int, std::allocator<int> >::value_type") is not None
    # The anonymous namespace's types are found with and without it, as in C++.
    assert members(symbols.find_type("(anonymous namespace)::Hidden")) == ["tag"]
    assert members(symbols.find_type("Hidden")) == ["tag"]
    # A forward declaration resolves to the definition.
    assert members(symbols.find_type("Declared")) == ["weight"]
    assert members(symbols.find_type("struct Declared")) == ["weight"]
    assert name("int") == "int"
    assert name("long unsigned int") == "unsigned long"


def test_misses_are_answered_by_the_index(program: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    symbols = symbols_of(program)
    walks: list[str] = []
    original = DwarfUnits.find_dies

    def counting_find_dies(self: DwarfUnits, name: str, **kwargs: object) -> object:
        walks.append(name)
        return original(self, name, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(DwarfUnits, "find_dies", counting_find_dies)
    for missing in ("nope::Missing", "std::vector<Missing>", "outer::inner::Leaf::Missing",
                    "std::map<std::string, int>"):  # fmt: skip (gdb misses the last one too)
        assert symbols.find_type(missing) is None
    assert walks == []  # a qualified miss reads no DIE
    assert symbols.type_index is not None and symbols.type_index.scans == 1


def test_a_repeated_lookup_walks_no_die(program: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    symbols = symbols_of(program)
    calls = {"die_of": 0, "find_dies": 0, "top_level_names": 0}

    def counted(owner: type, name: str) -> None:
        original = getattr(owner, name)

        def wrapper(*args: object, **kwargs: object) -> object:
            calls[name] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, wrapper)

    counted(IndexedTypes, "die_of")
    counted(DwarfUnits, "find_dies")
    counted(DwarfUnits, "top_level_names")
    first = symbols.find_type("outer::inner::Leaf::Nested")
    assert calls == {"die_of": 1, "find_dies": 0, "top_level_names": 0}
    for _ in range(3):
        assert symbols.find_type("outer::inner::Leaf::Nested") is first
        assert symbols.find_type("nope::Missing") is None
    assert calls == {"die_of": 1, "find_dies": 0, "top_level_names": 0}


def test_the_index_is_cached_on_disk(program: Path, tmp_path: Path) -> None:
    cache = IndexCache(str(tmp_path))
    image = ElfImage.load(str(program))
    first = TypeNameIndex(str(program), image.build_id, cache)
    found = first.lookup("outer::inner::Leaf::Nested")
    assert found and first.scans == 1
    again = TypeNameIndex(str(program), image.build_id, cache)
    assert again.lookup("outer::inner::Leaf::Nested") == found
    assert again.scans == 0  # read from the cache, not scanned
    assert again.has_qualified_names


def test_a_c_program_has_no_qualified_names(builder: Builder, monkeypatch: pytest.MonkeyPatch) -> None:
    path = builder.build("src_basic", ("-g", "-O0"))
    symbols = symbols_of(path)
    index = symbols.indexed_types().index
    assert not index.has_qualified_names and not index.covers_all
    walks: list[str] = []
    original = DwarfUnits.find_dies
    monkeypatch.setattr(DwarfUnits, "find_dies",
                        lambda self, name, **kw: walks.append(name) or original(self, name, **kw))  # fmt: skip
    assert symbols.find_type("std::vector<int>") is None
    assert walks == []


@needs_cxx
def test_dwarf5_type_units_define_their_types(tmp_path_factory: pytest.TempPathFactory) -> None:
    """With -fdebug-types-section a type is defined in its own unit, at the top with a
    DW_AT_specification into its namespace: it is indexed under its qualified name, the
    units' declarations (DW_AT_signature) come after it."""
    path = MoreBuilder(tmp_path_factory.mktemp("tu")).build_cpp(
        "cpp_typenames", FLAGS["dwarf5-type-units"]
    )
    index = TypeNameIndex(str(path), None)
    entries = index.lookup("outer::inner::Leaf")
    assert entries and not entries[0].declaration
    assert any(e.declaration for e in entries)
    assert index.names().signatures
