"""ProcessSymbols on compiled programs at made-up biases, and on this very process."""

from __future__ import annotations

import ctypes
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.model import Module, SymbolLocation
from aliceserver.debuggers.symbols import auxv
from aliceserver.debuggers.symbols.elf import ElfCache, ElfImage
from aliceserver.debuggers.symbols.linkmap import (
    LinkMapEntry,
    find_r_debug_from_dynamic,
    read_link_map,
    read_r_debug,
)
from aliceserver.debuggers.symbols.process import ProcessSymbols

BIAS = 0x5555_5555_4000
LIB_BIAS = 0x7F00_0000_0000

LIBRARY_C = r"""
int thing(void) { return 7; }
int shared_only(int x) { return x * 3; }
int lib_data = 5;
"""
MAIN_WITH_THING_C = r"""
int thing = 1;
int main(void) { return thing; }
"""


@pytest.fixture(scope="module")
def library(ctools: Any) -> Path:
    path: Path = ctools.build(LIBRARY_C, "-shared", "-fPIC", "-O1", name="libthing.so")
    return path


def test_main_module_and_lookups(program_pie: Path) -> None:
    symbols = ProcessSymbols()
    image = ElfImage.load(str(program_pie))
    module = symbols.set_main(str(program_pie), BIAS)
    text = image.text_range
    assert text is not None and text[0] < text[1]
    assert module == Module(
        path=str(program_pie),
        base=BIAS,
        low=image.load_low + BIAS,
        high=image.load_high + BIAS,
        is_main=True,
        text=(text[0] + BIAS, text[1] + BIAS),
    )
    assert symbols.modules() == [module]
    assert symbols.image_of(str(program_pie)) is not None
    add = image.find_symbol("add")
    assert add is not None
    assert symbols.lookup_name("add") == add.address + BIAS
    assert symbols.lookup_name("helper") is not None  # local symbols too
    assert symbols.lookup_name("no_such_thing") is None
    assert symbols.lookup_address(BIAS + add.address + 3) == SymbolLocation(
        address=BIAS + add.address + 3, name="add", offset=3, module=str(program_pie)
    )
    assert symbols.module_at(BIAS + add.address) == module
    assert symbols.module_at(module.high) is None
    outside = symbols.lookup_address(0x1000)
    assert outside == SymbolLocation(address=0x1000, name=None, offset=0, module=None)
    # Mapped but far from any symbol: the module is known, the name is not.
    unnamed = symbols.lookup_address(module.low)
    assert unnamed.module == str(program_pie)


def test_libraries_in_load_order(program_pie: Path, library: Path) -> None:
    symbols = ProcessSymbols(ElfCache())
    main = symbols.set_main(str(program_pie), BIAS)
    lib = symbols.add_module(str(library), LIB_BIAS)
    assert lib is not None and not lib.is_main
    assert symbols.modules() == [main, lib]
    shared = ElfImage.load(str(library)).find_symbol("shared_only")
    assert shared is not None
    assert symbols.lookup_name("shared_only") == shared.address + LIB_BIAS
    location = symbols.lookup_address(LIB_BIAS + shared.address + 1)
    assert (location.name, location.offset, location.module) == ("shared_only", 1, str(library))
    assert symbols.remove_module(str(library)) == lib
    assert symbols.remove_module(str(library)) is None
    assert symbols.lookup_name("shared_only") is None
    assert symbols.modules() == [main]
    symbols.clear()
    assert symbols.modules() == []
    assert symbols.lookup_address(BIAS).module is None


def test_lookup_name_prefers_a_function_over_an_earlier_data_symbol(
    ctools: Any, library: Path
) -> None:
    program = ctools.build(MAIN_WITH_THING_C, "-O0", name="thingmain")
    symbols = ProcessSymbols()
    symbols.set_main(str(program), BIAS)
    symbols.add_module(str(library), LIB_BIAS)
    function = ElfImage.load(str(library)).find_symbol("thing")
    assert function is not None and function.kind == "func"
    assert symbols.lookup_name("thing") == function.address + LIB_BIAS
    # Without a function anywhere, the first module's symbol wins.
    data = ElfImage.load(str(program)).find_symbol("thing")
    assert data is not None
    symbols.remove_module(str(library))
    assert symbols.lookup_name("thing") == data.address + BIAS


def test_add_module_skips_what_it_cannot_load(
    program_pie: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    symbols = ProcessSymbols()
    symbols.set_main(str(program_pie), BIAS)
    with caplog.at_level(logging.DEBUG, logger="aliceserver.debuggers.symbols.process"):
        assert symbols.add_module(str(tmp_path / "gone.so"), LIB_BIAS) is None
    assert "gone.so" in caplog.text
    assert symbols.add_module("linux-vdso.so.1", LIB_BIAS) is None
    assert symbols.add_module("", LIB_BIAS) is None
    assert len(symbols.modules()) == 1


def test_set_main_replaces_the_previous_main(program_pie: Path, program_nopie: Path) -> None:
    symbols = ProcessSymbols()
    symbols.set_main(str(program_pie), BIAS)
    second = symbols.set_main(str(program_nopie), 0)
    assert symbols.modules() == [second]


def test_set_main_raises_for_a_missing_program(tmp_path: Path) -> None:
    from aliceserver.errors import TargetError

    with pytest.raises(TargetError):
        ProcessSymbols().set_main(str(tmp_path / "missing"), 0)


class CountingCache(ElfCache):
    def __init__(self) -> None:
        super().__init__()
        self.requests: list[str] = []

    def get(self, path: str) -> ElfImage:
        self.requests.append(path)
        return super().get(path)


def test_sync_link_map(program_pie: Path, library: Path, ctools: Any, tmp_path: Path) -> None:
    other = ctools.build(LIBRARY_C, "-shared", "-fPIC", "-O0", name="libother.so")
    cache = CountingCache()
    symbols = ProcessSymbols(cache)
    main = symbols.set_main(str(program_pie), BIAS)
    gone = str(tmp_path / "gone.so")
    first = [
        LinkMapEntry(0, "", 0),  # the main program
        LinkMapEntry(0x7F00_0000_0000, "linux-vdso.so.1", 0),
        LinkMapEntry(LIB_BIAS, str(library), 0),
        LinkMapEntry(0x7F10_0000_0000, gone, 0),
    ]
    broken = tmp_path / "broken.so"
    broken.write_bytes(b"no ELF")
    first.append(LinkMapEntry(0x7F18_0000_0000, str(broken), 0))
    loaded, unloaded = symbols.sync_link_map(first)
    # A file found nowhere is listed as gdb lists it, symbols not read, at no addresses;
    # one that is there but unreadable is not
    assert [(m.path, m.high) for m in loaded] == [(str(library), loaded[0].high), (gone, 0)] and unloaded == []
    assert loaded[0].high and symbols.is_missing(loaded[1]) and not symbols.is_missing(loaded[0])
    assert symbols.modules() == [main, loaded[0]] and symbols.unread_libraries() == [loaded[1]]
    # Unchanged: nothing to do, and the unloadable file is not tried again.
    requests = len(cache.requests)
    assert symbols.sync_link_map(first) == ([], [])
    assert len(cache.requests) == requests

    second = [first[0], LinkMapEntry(0x7F20_0000_0000, str(other), 0)]
    loaded2, unloaded2 = symbols.sync_link_map(second)
    assert [m.path for m in loaded2] == [str(other)]
    assert unloaded2 == loaded
    # Loaded again at another address: reported as unloaded and loaded.
    third = [first[0], LinkMapEntry(0x7F30_0000_0000, str(other), 0)]
    loaded3, unloaded3 = symbols.sync_link_map(third)
    assert unloaded3 == loaded2 and [m.base for m in loaded3] == [0x7F30_0000_0000]
    # The main program is never removed, even by an empty list.
    assert symbols.sync_link_map([]) == ([], loaded3)
    assert symbols.modules() == [main]


def test_library_symbols_dropped_and_read_again(program_pie: Path, library: Path, ctools: Any) -> None:
    other = ctools.build(LIBRARY_C, "-shared", "-fPIC", "-O0", name="libother.so")
    symbols = ProcessSymbols(ElfCache())
    main = symbols.set_main(str(program_pie), BIAS)
    entries = [LinkMapEntry(0, "", 0), LinkMapEntry(LIB_BIAS, str(library), 0),
               LinkMapEntry(0x7F20_0000_0000, str(other), 0)]  # fmt: skip
    loaded, _ = symbols.sync_link_map(entries)
    shared = ElfImage.load(str(library)).find_symbol("shared_only")
    assert shared is not None
    # Dropped: no lookup sees the libraries, though an address still names its library.
    assert symbols.drop_library_symbols() == loaded
    assert symbols.modules() == [main] and symbols.unread_libraries() == loaded
    assert symbols.lookup_name("shared_only") is None and symbols.module_at(LIB_BIAS + shared.address) is None
    location = symbols.lookup_address(LIB_BIAS + shared.address)
    assert (location.name, location.module) == (None, str(library))
    # Still mapped for the unwinder, with its image (its call frame information).
    assert symbols.mapped_module_at(LIB_BIAS + shared.address) == loaded[0]
    assert symbols.mapped_image_of(str(library)) is symbols.mapped_image_of(str(library)) is not None
    assert symbols.mapped_modules() == [main, *loaded]
    # The loader's unchanged list neither reports nor reads them; one gone is unloaded.
    assert symbols.sync_link_map(entries) == ([], [])
    assert symbols.sync_link_map(entries[:2]) == ([], [loaded[1]])
    # Read again: at the address they are mapped at.
    assert symbols.read_library_symbols([str(library), "/not/listed.so"]) == [loaded[0]]
    assert symbols.unread_libraries() == [] and symbols.modules() == [main, loaded[0]]
    assert symbols.lookup_name("shared_only") == LIB_BIAS + shared.address


def test_generation_moves_with_every_change_of_the_lookups(program_pie: Path, library: Path) -> None:
    """What the unwinder keeps across stops (each pc's CFI row and symbol) is kept while
    the generation stays: it must move whenever an address may be looked up differently."""
    symbols = ProcessSymbols(ElfCache())
    seen = [symbols.generation]

    def moved() -> bool:
        seen.append(symbols.generation)
        return seen[-1] != seen[-2]

    symbols.set_main(str(program_pie), BIAS)
    assert moved()
    entries = [LinkMapEntry(0, "", 0), LinkMapEntry(LIB_BIAS, str(library), 0)]
    symbols.sync_link_map(entries)
    assert moved()
    symbols.sync_link_map(entries)  # the same list: the same lookups
    assert not moved()
    symbols.drop_library_symbols()
    assert moved()
    symbols.sync_link_map(entries[:1])  # a library without its symbols read goes away
    assert moved()
    symbols.sync_link_map(entries)
    assert moved()
    symbols.remove_module(str(library))
    assert moved()


def _own_link_map(memory: Any) -> tuple[str, int, list[LinkMapEntry]]:
    exe_path = os.readlink("/proc/self/exe")
    exe = ElfImage.load(exe_path)
    if exe.dynamic_vaddr is None or exe.phdr_vaddr is None:
        pytest.skip("this python is statically linked")
    bias = auxv.read_auxv(os.getpid())[auxv.AT_PHDR] - exe.phdr_vaddr
    address = find_r_debug_from_dynamic(memory, exe.dynamic_vaddr + bias)
    assert address is not None
    entries = read_link_map(memory, read_r_debug(memory, address).map_addr)
    return exe_path, bias, entries


def test_this_process(self_memory: Any) -> None:
    exe_path, bias, entries = _own_link_map(self_memory)
    symbols = ProcessSymbols()
    symbols.set_main(exe_path, bias)
    loaded, unloaded = symbols.sync_link_map(entries)
    assert unloaded == []
    assert any(os.path.basename(m.path).startswith("libc.so") for m in loaded)

    # libc's own malloc: the global scope may give a non-PIE python's canonical PLT entry
    malloc = ctypes.cast(ctypes.CDLL("libc.so.6").malloc, ctypes.c_void_p).value
    assert malloc is not None
    assert symbols.lookup_name("malloc") == malloc
    location = symbols.lookup_address(malloc + 4)
    assert (location.name, location.offset) == ("malloc", 4)
    assert location.module is not None and "libc.so" in location.module

    incref = ctypes.cast(ctypes.pythonapi.Py_IncRef, ctypes.c_void_p).value
    assert incref is not None
    assert symbols.lookup_address(incref).name == "Py_IncRef"
    assert symbols.lookup_name("Py_IncRef") == incref
