"""A program's index built cold packs its ELF symbol table straight from the section bytes
(symtab_pack.py), with no tuple per symbol, and packs exactly what parsing every symbol
packs: the cache file is the same, so are a session's answers.

Real builds with what the packing treats apart: a C++ program at -O2 (mangled names, a
function's `.cold` part, two static functions of one name in two units, an alias and a
weak function, a thread-local variable, calls through the PLT) and a shared library with
two versions of a symbol (`ver_pick@VER_1`, `ver_pick@@VER_2`: .dynsym's hidden bit).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols._elfread import read_elf
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.funclist import pack_functions
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.dwarf.namepart import index_key
from aliceserver.debuggers.symbols.elf import ElfImage, _build_table
from aliceserver.debuggers.symbols.symtab_pack import pack
from tests.support.batch import ours_cached

pytestmark = pytest.mark.timeout(120)

_LIBRARY = """
int ver_old(int x) { return x + 1; }
int ver_new(int x) { return x + 2; }
__asm__(".symver ver_old,ver_pick@VER_1");
__asm__(".symver ver_new,ver_pick@@VER_2");
"""
_VERSIONS = "VER_1 { global: ver_pick; local: *; };\nVER_2 { global: ver_pick; } VER_1;\n"
_MAIN = """
#include <cstdio>
#include <cstdlib>
extern "C" int ver_pick(int);
int twin_b(int);
namespace geo { struct Shape { int side; int area() const; }; }
__attribute__((noinline)) int geo::Shape::area() const { return side * side; }
static __attribute__((noinline)) int twin(int x) { return x * 3; }
extern "C" __attribute__((noinline)) int plain_target(int x) { return twin(x) + 1; }
extern "C" int alias_target(int x) __attribute__((alias("plain_target")));
extern "C" __attribute__((weak, noinline)) int weak_one(int x) { return x - 1; }
thread_local int tls_counter;
volatile int sink;
__attribute__((cold, noinline)) void report(int i) { std::fprintf(stderr, "too many %d\\n", i); }
__attribute__((noinline)) int hot(int x)
{
    int total = 0;
    for (int i = 0; i < x; i++) {
        if (i > 1000000) { report(i); sink = i; std::exit(2); }
        total += i * sink;
    }
    return total;
}
int main(int argc, char **)
{
    geo::Shape shape{argc + 2};
    tls_counter = argc;
    std::printf("%d\\n", shape.area() + alias_target(argc) + weak_one(argc) + hot(argc) + twin_b(argc)
                + ver_pick(argc) + tls_counter);
    return 0;
}
"""
_OTHER = "static __attribute__((noinline)) int twin(int x) { return x * 5; }\nint twin_b(int x) { return twin(x) + 2; }\n"
_SESSION = ("-batch", "-ex", "break geo::Shape::area", "-ex", "break twin", "-ex", "run", "-ex", "bt",
            "-ex", "info symbol alias_target", "-ex", "info symbol hot", "-ex", "info line weak_one",
            "-ex", "continue", "-ex", "bt")  # fmt: skip


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("g++") is None:
        pytest.skip("g++ not found")
    root = tmp_path_factory.mktemp("symtab-pack")
    (root / "ver.c").write_text(_LIBRARY)
    (root / "ver.map").write_text(_VERSIONS)
    (root / "main.cpp").write_text(_MAIN)
    (root / "other.cpp").write_text(_OTHER)
    subprocess.run(["gcc", "-g", "-O0", "-shared", "-fPIC", "-Wl,--version-script=ver.map", "ver.c",
                    "-o", "libver.so"], cwd=root, check=True)  # fmt: skip
    subprocess.run(["g++", "-g", "-O2", "main.cpp", "other.cpp", "-L.", "-lver", "-Wl,-rpath,$ORIGIN",
                    "-o", "prog"], cwd=root, check=True)  # fmt: skip
    return root / "prog"


def _slow(path: Path) -> tuple[object, object, list[str]]:
    """What parsing every symbol packs: the table, the function list, the names to demangle."""
    table = _build_table(read_elf(str(path)))
    functions = table.functions()
    return (
        table.packed(),
        pack_functions(functions),
        [n for n, _a, _s in functions if n.startswith("_Z")],
    )


@pytest.mark.parametrize("name", ["prog", "libver.so"])
def test_packed_from_the_bytes_as_parsed(program: Path, name: str) -> None:
    path = program.parent / name
    fast = pack(read_elf(str(path)))
    assert fast is not None
    table, (functions, mangled) = fast
    slow_table, slow_functions, slow_mangled = _slow(path)
    assert table == slow_table and functions == slow_functions and mangled == slow_mangled
    text, _raw, flags, count = table[:4]
    names = text.split("\0")
    if name == "prog":  # what the packing treats apart is there to treat
        assert {"_ZNK3geo5Shape4areaEv", "plain_target", "alias_target", "weak_one"} <= set(names)
        assert names.count("_ZL4twini") == 2 and any(n.endswith(".cold") for n in names)
        assert any(n.endswith("@plt") for n in names[count:]) and "tls_counter" not in names
        assert "_ZNK3geo5Shape4areaEv" in mangled
    else:
        hidden = {n for n, f in zip(names, flags, strict=True) if f & 16}
        assert "ver_pick" in hidden or "ver_pick@VER_1" in hidden


def test_a_cold_index_uses_the_packed_table(program: Path, tmp_path: Path) -> None:
    """DebugInfo.load of a program not in the cache: the image answers from the packed
    table (no entry per symbol made), which is the cache file's, as parsing gives it."""
    image = ElfImage.load(str(program))
    cache = IndexCache(str(tmp_path / "cache"))
    info = DebugInfo.load(image, cache=cache)
    assert info is not None and info.built
    table = image._symtab()
    assert table._real is None and table._columns is not None  # not parsed symbol by symbol
    found = image.find_symbol("alias_target")
    assert found is not None and image.symbol_at(found.address) is not None
    key, identity = index_key(image.build_id, str(program), str(program))
    payload = cache.load(key, identity)
    assert payload is not None and payload["symbols"] == _slow(program)[0]
    assert [m.name for m in info.functions_named("twin")] == ["twin(int)", "twin(int)"]


def _session(program: Path, cache: Path) -> str:
    return ours_cached(program, _SESSION, cache, env={"XDG_CACHE_HOME": str(cache.parent / "xdg")})


def test_a_cold_session_answers_as_a_warm_one(program: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = _session(program, cache)
    assert "Breakpoint 1, geo::Shape::area" in cold and "Breakpoint 2.1, twin (x=x@entry=1)" in cold
    assert "alias_target in section .text" in cold or "plain_target in section .text" in cold
    assert _session(program, cache) == cold
