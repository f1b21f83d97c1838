"""ElfImage against binutils (nm, readelf, objdump) on programs compiled at test time."""

from __future__ import annotations

import collections
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.elf import ElfCache, ElfImage
from aliceserver.errors import TargetError, Unsupported

NM_TYPES = set("TtDdBbRrWwVvi")  # defined symbols with an address (A: absolute, N: debug)


def _header_field(readelf_h: str, label: str) -> str:
    match = re.search(rf"^\s*{re.escape(label)}:\s*(.+)$", readelf_h, re.MULTILINE)
    assert match, label
    return match.group(1).strip()


def _nm_pairs(ctools: Any, path: Path, *, dynamic: bool = False) -> set[tuple[str, int]]:
    tls = ctools.tls_names(path)
    return {
        (s.name, s.address)
        for s in ctools.nm(path, dynamic=dynamic)
        if s.type in NM_TYPES and s.name not in tls
    }


@pytest.mark.parametrize("variant", ["program_pie", "program_nopie", "program_static"])
def test_symbols_match_nm(variant: str, ctools: Any, request: pytest.FixtureRequest) -> None:
    path: Path = request.getfixturevalue(variant)
    image = ElfImage.load(str(path))
    ours = {(s.name, s.address) for s in image.symbols() if not s.name.endswith(("@plt", "@got.plt"))}
    assert ours == _nm_pairs(ctools, path)
    # Every name nm lists once resolves to nm's address.
    listed = [s for s in ctools.nm(path) if s.type in NM_TYPES]
    counts = collections.Counter(s.name for s in listed)
    tls = ctools.tls_names(path)
    for nm_symbol in listed:
        if counts[nm_symbol.name] == 1 and nm_symbol.name not in tls:
            found = image.find_symbol(nm_symbol.name)
            assert found is not None, nm_symbol
            assert found.address == nm_symbol.address, nm_symbol


def test_symbols_sorted_and_typed(program_pie: Path) -> None:
    image = ElfImage.load(str(program_pie))
    symbols = image.symbols()
    assert [s.address for s in symbols] == sorted(s.address for s in symbols)
    add = image.find_symbol("add")
    helper = image.find_symbol("helper")
    counter = image.find_symbol("global_counter")
    assert add is not None and add.kind == "func" and add.binding == "global" and add.size > 0
    assert helper is not None and helper.kind == "func" and helper.binding == "local"
    assert counter is not None and counter.kind == "object" and counter.size == 4
    assert image.find_symbol("no_such_symbol") is None


@pytest.mark.parametrize(
    ("variant", "pie", "dynamic"),
    [("program_pie", True, True), ("program_nopie", False, True), ("program_static", False, False)],
)
def test_headers_match_readelf(
    variant: str, pie: bool, dynamic: bool, ctools: Any, request: pytest.FixtureRequest
) -> None:
    path: Path = request.getfixturevalue(variant)
    image = ElfImage.load(str(path))
    header = ctools.readelf("-h", str(path))
    assert image.entry == int(_header_field(header, "Entry point address"), 16)
    assert image.is_pie is pie
    assert image.machine == "EM_X86_64"
    notes = ctools.readelf("-n", str(path))
    build_id = re.search(r"Build ID:\s*([0-9a-f]+)", notes)
    assert build_id and image.build_id == build_id.group(1)

    segments = ctools.readelf("-l", str(path))
    loads = [
        (int(m.group(1), 16), int(m.group(2), 16))
        for m in re.finditer(
            r"^\s*LOAD\s+0x\S+\s+(0x\S+)\s+0x\S+\s+0x\S+\s+(0x\S+)", segments, re.M
        )
    ]
    assert image.load_low == min(v for v, _ in loads)
    assert image.load_high == max(v + size for v, size in loads)
    interp = re.search(r"Requesting program interpreter: (.+)\]", segments)
    dyn = re.search(r"^\s*DYNAMIC\s+0x\S+\s+(0x\S+)", segments, re.M)
    if dynamic:
        assert interp and image.interp == interp.group(1)
        assert dyn and image.dynamic_vaddr == int(dyn.group(1), 16)
    else:
        assert image.interp is None and image.dynamic_vaddr is None
    phdr = re.search(r"^\s*PHDR\s+0x\S+\s+(0x\S+)", segments, re.M)
    phoff = int(re.sub(r"\s*\(.*", "", _header_field(header, "Start of program headers")))
    expected_phdr = int(phdr.group(1), 16) if phdr else image.load_low + phoff
    assert image.phdr_vaddr == expected_phdr


def test_symbol_at_inside_functions(program_nopie: Path) -> None:
    image = ElfImage.load(str(program_nopie))
    for name in ("add", "helper", "compute", "main"):
        symbol = image.find_symbol(name)
        assert symbol is not None and symbol.size > 0
        for offset in (0, 1, symbol.size // 2, symbol.size - 1):
            assert image.symbol_at(symbol.address + offset) == (symbol, offset)
    counter = image.find_symbol("global_counter")
    assert counter is not None
    assert image.symbol_at(counter.address + 2) == (counter, 2)
    assert image.symbol_at(0) is None
    assert image.symbol_at(image.load_high + 0x100000) is None


def test_symbol_at_every_function_of_a_static_binary(program_static: Path) -> None:
    image = ElfImage.load(str(program_static))
    functions = [s for s in image.symbols() if s.kind == "func" and s.size > 1]
    assert len(functions) > 500
    for symbol in functions:
        hit = image.symbol_at(symbol.address + symbol.size // 2)
        assert hit is not None, symbol
        found, offset = hit
        # An alias or an enclosing symbol may win, but it must cover the address.
        assert found.address + offset == symbol.address + symbol.size // 2
        assert found.size == 0 or offset < found.size


def test_plt_stubs_match_objdump(program_pie: Path, program_nopie: Path, ctools: Any) -> None:
    for path in (program_pie, program_nopie):
        image = ElfImage.load(str(path))
        labels = {
            (m.group(2), int(m.group(1), 16))
            for m in re.finditer(r"^([0-9a-f]+) <(\S+@plt)>:", ctools.objdump(path, "-d"), re.M)
        }
        ours = {(s.name, s.address) for s in image.symbols() if s.name.endswith("@plt")}
        assert ours == labels
        assert ("printf@plt", image.find_symbol("printf@plt").address) in labels  # type: ignore[union-attr]
        stub = image.find_symbol("printf@plt")
        assert stub is not None
        assert image.symbol_at(stub.address + 4) == (stub, 4)


def test_got_plt_slots_match_readelf(program_pie: Path, ctools: Any) -> None:
    """gdb's `name@got.plt`: one 8-byte slot per .rela.plt relocation, named by its symbol."""
    image = ElfImage.load(str(program_pie))
    relocations = ctools.readelf("-rW", str(program_pie)).split("'.rela.plt'")[-1]
    slots = {
        (m.group(2).split("@")[0] + "@got.plt", int(m.group(1), 16))
        for m in re.finditer(r"^([0-9a-f]+)\s+\S+\s+R_X86_64_JUMP_SLOT\s+\S+\s+(\S+)", relocations, re.M)
    }
    ours = {(s.name, s.address) for s in image.symbols() if s.name.endswith("@got.plt")}
    assert slots and ours == slots
    some = min(slots, key=lambda slot: slot[1])
    assert image.symbol_at(some[1] + 4) == (image.find_symbol(some[0]), 4)


def test_plt_stubs_of_this_process_libc(self_maps: dict[str, int], ctools: Any) -> None:
    # libc calls its own ifuncs through `*ABS*+0x...@plt` stubs (IRELATIVE relocations).
    libc = next((p for p in self_maps if os.path.basename(p).startswith("libc.so")), None)
    if libc is None:
        pytest.skip("this python does not map a shared libc")
    image = ElfImage.load(libc)
    labels = {
        (m.group(2), int(m.group(1), 16))
        for m in re.finditer(r"^([0-9a-f]+) <(\S+@plt)>:", ctools.objdump(Path(libc), "-d"), re.M)
    }
    assert {(s.name, s.address) for s in image.symbols() if s.name.endswith("@plt")} == labels


def test_is_executable_address(program_nopie: Path) -> None:
    image = ElfImage.load(str(program_nopie))
    main = image.find_symbol("main")
    counter = image.find_symbol("global_counter")
    assert main is not None and counter is not None
    assert image.is_executable_address(image.entry)
    assert image.is_executable_address(main.address)
    assert not image.is_executable_address(counter.address)
    assert not image.is_executable_address(0)


def test_stripped_binary_uses_dynsym(program_source: str, ctools: Any) -> None:
    exported = ctools.build(program_source, "-O0", "-rdynamic", name="exported")
    stripped = ctools.strip(exported)
    assert ".symtab" not in ctools.readelf("-S", str(stripped))
    image = ElfImage.load(str(stripped))
    ours = {(s.name, s.address) for s in image.symbols() if not s.name.endswith(("@plt", "@got.plt"))}
    assert ours == _nm_pairs(ctools, stripped, dynamic=True)
    compute = image.find_symbol("compute")
    assert compute is not None and compute.size > 0
    assert image.symbol_at(compute.address + 5) == (compute, 5)
    assert image.find_symbol("helper") is None  # local symbols went with .symtab


VERSIONED_C = r"""
int foo_v1(void) { return 1; }
int foo_v2(void) { return 2; }
__asm__(".symver foo_v1, foo@VER_1");
__asm__(".symver foo_v2, foo@@VER_2");
"""
VERSION_SCRIPT = "VER_1 { global: foo; local: *; };\nVER_2 { global: foo; } VER_1;\n"


@pytest.mark.parametrize("strip", [False, True])
def test_symbol_versions(strip: bool, ctools: Any) -> None:
    library = ctools.build(
        VERSIONED_C,
        "-shared",
        "-fPIC",
        "-Wl,--version-script=@EXTRA@",
        name="libversioned.so",
        extra=VERSION_SCRIPT,
    )
    unstripped = ElfImage.load(str(library))
    v1 = unstripped.find_symbol("foo_v1")
    v2 = unstripped.find_symbol("foo_v2")
    assert v1 is not None and v2 is not None and v1.address != v2.address
    image = ElfImage.load(str(ctools.strip(library) if strip else library))
    found = image.find_symbol("foo")
    assert found is not None and found.address == v2.address  # the default version
    assert image.find_symbol("foo@@VER_2") is not None
    if not strip:
        old = image.find_symbol("foo@VER_1")
        assert old is not None and old.address == v1.address


def test_missing_file_raises_target_error(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="cannot read"):
        ElfImage.load(str(tmp_path / "nope"))


def test_directory_raises_target_error(tmp_path: Path) -> None:
    with pytest.raises(TargetError):
        ElfImage.load(str(tmp_path))


def test_non_elf_raises_target_error(tmp_path: Path) -> None:
    text = tmp_path / "script.sh"
    text.write_text("#!/bin/sh\necho hello\n")
    with pytest.raises(TargetError, match="not an ELF file"):
        ElfImage.load(str(text))
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with pytest.raises(TargetError, match="not an ELF file"):
        ElfImage.load(str(empty))


def test_unreadable_file_raises_target_error(program_pie: Path, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    copy = tmp_path / "locked"
    shutil.copy(program_pie, copy)
    copy.chmod(0)
    with pytest.raises(TargetError):
        ElfImage.load(str(copy))


@pytest.mark.parametrize("size", [20, 64, 200, 2000])
def test_truncated_elf_raises_target_error(size: int, program_pie: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut"
    cut.write_bytes(program_pie.read_bytes()[:size])
    with pytest.raises(TargetError):
        ElfImage.load(str(cut))


def test_elf32_is_unsupported(tmp_path: Path) -> None:
    elf32 = tmp_path / "elf32"
    elf32.write_bytes(b"\x7fELF\x01\x01\x01" + bytes(45))
    with pytest.raises(Unsupported, match="32-bit"):
        ElfImage.load(str(elf32))


def test_cache_reuses_until_the_file_changes(program_pie: Path, tmp_path: Path) -> None:
    copy = tmp_path / "prog"
    shutil.copy(program_pie, copy)
    link = tmp_path / "link"
    link.symlink_to(copy)
    cache = ElfCache(capacity=2)
    first = cache.get(str(copy))
    assert cache.get(str(copy)) is first
    assert cache.get(str(link)) is first  # same real file
    stat = copy.stat()
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    second = cache.get(str(copy))
    assert second is not first
    assert len(cache) == 1  # the stale version was dropped
    with pytest.raises(TargetError):
        cache.get(str(tmp_path / "missing"))


def test_cache_evicts_least_recently_used(program_pie: Path, tmp_path: Path) -> None:
    paths = []
    for i in range(3):
        paths.append(tmp_path / f"p{i}")
        shutil.copy(program_pie, paths[-1])
    cache = ElfCache(capacity=2)
    images = [cache.get(str(p)) for p in paths]
    assert len(cache) == 2
    assert cache.get(str(paths[2])) is images[2]
    assert cache.get(str(paths[0])) is not images[0]  # evicted, loaded again


def test_static_binary_symbols(program_static: Path) -> None:
    # A static binary carries all of libc's ~1900 symbols: lookups must still be exact.
    image = ElfImage.load(str(program_static))
    main = image.find_symbol("main")
    assert main is not None and main.kind == "func"
    found = image.symbol_at(image.entry)
    assert found is not None and found[0].name == "_start" and found[1] == 0


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("corrupt")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4095), st.integers(0, 255)), min_size=1, max_size=8),
    st.one_of(st.none(), st.integers(0, 20000)),
)
def test_corrupt_files_raise_only_our_errors(
    program_pie: Path, scratch: Path, edits: list[tuple[int, int]], cut: int | None
) -> None:
    data = bytearray(program_pie.read_bytes())
    for position, value in edits:  # the headers and tables live in the first pages
        data[position % len(data)] = value
    path = scratch / "corrupt"
    path.write_bytes(bytes(data[:cut] if cut is not None else data))
    try:
        image = ElfImage.load(str(path))
        image.symbols()
        image.find_symbol("main")
        image.symbol_at(image.entry)
    except (TargetError, Unsupported):
        pass


def test_type_and_machine_names_are_pyelftools_ones() -> None:
    """The ELF type and machine names are pyelftools' (the machines other than those
    debugged here from its table, imported when one is met)."""
    from elftools.elf.enums import ENUM_E_MACHINE, ENUM_E_TYPE

    from aliceserver.debuggers.symbols import _elfread

    assert _elfread._TYPES == {v: n for n, v in ENUM_E_TYPE.items() if not n.startswith("_")}
    machines = {v: n for n, v in ENUM_E_MACHINE.items() if not n.startswith("_")}
    assert [_elfread.machine_name(n) for n in range(400)] == [machines.get(n, str(n)) for n in range(400)]
