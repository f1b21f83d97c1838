"""C++ functions without debug info and split functions, by gdb's names, against gdb 13.

gdb names an ELF symbol by its natural name: a libstdc++ frame is `std::basic_ostream<char,
std::char_traits<char> >::flush() ()` (demangled, the standard names written out, with its
parameters), a PLT stub `operator new(unsigned long)@plt`, in backtraces, `info symbol`
and breakpoint locations, and `break` finds one by that name. A function gcc split into a
hot part and a `.cold` one (main, at -O2) is broken at its entry, the hot part, by every
spelling: `main(int, char**)`, quoted, `FILE:'main(int, char**)'` (rbreak's); it was the
cold part, which only an exception runs. And `break NAME` matches those symbols by their
demangled names as gdb's wild matching does (`break flush`: libstdc++'s methods, the
`std::flush` manipulators and the PLT stubs calling them, beside the program's own)."""

from __future__ import annotations

import re
import sys
from contextlib import nullcontext
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from aliceserver.debuggers.model import LaunchConfig
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.debuggers.symbols.dwarf import inlinemap
from tests.support.batch import batch_in_program_dir, needs_gdb
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.gdb import gdb_path

pytestmark = [
    needs_gdb,
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
    pytest.mark.timeout(180),
]


def output_like_gdb(program: Path, commands: list[str]) -> str:
    """The same output, stdout and stderr together, from gdb's `-batch` and ours (the
    program's environment the same: its stack addresses too)."""
    expected = batch_in_program_dir([str(gdb_path())], commands, program)
    got = batch_in_program_dir([sys.executable, "-m", "aliceserver"], commands, program)
    assert got == expected
    return got


@pytest.fixture(scope="module")
def split(builder: Builder) -> Path:
    program = MoreBuilder(builder.cache_dir).build_cpp("cxx_inlined_names", ("-g", "-O2"))
    with program.open("rb") as stream:
        table = ELFFile(stream).get_section_by_name(".symtab")
        names = {symbol.name for symbol in table.iter_symbols()} if isinstance(table, SymbolTableSection) else set()
    if "main.cold" not in names:
        pytest.skip("this g++ did not split main into a .cold part")
    return program


@pytest.fixture(scope="module")
def library_names(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cxx_library_names", ("-g", "-O0"))


@pytest.fixture(scope="module")
def streams(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cxx_stream_flush", ("-g", "-O0"))


def test_a_split_function_is_broken_at_its_entry(split: Path) -> None:
    spellings = ["main", "main(int, char**)", "'main(int, char**)'", "cxx_inlined_names.cpp:'main(int, char**)'",
                 "'cxx_inlined_names.cpp':main"]  # fmt: skip
    got = output_like_gdb(split, [*(f"break {s}" for s in spellings), "info breakpoints", "run", "bt 1"])
    places = {line.split()[3] for line in got.splitlines() if line.startswith("Breakpoint ") and " at 0x" in line}
    assert len(places) == 1, got  # one place, main's entry (the hot part)
    assert "cxx_inlined_names.cpp, line" in got and "main (argc=" in got


@pytest.mark.parametrize("together", [False, True], ids=["searched", "one-walk"])
def test_a_split_functions_definition_is_its_entry(split: Path, together: bool, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """Found by the search for its definitions (outofline.py), or, with rbreak's many names,
    by the one walk of the units (inlinemap.py): at the hot part's entry, as `break main`."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # (no answer remembered by another test)
    debugger = PtraceDebugger()
    try:
        debugger.launch(LaunchConfig(str(split)))
        entry = [place.address for place in debugger.resolve_location("main")]
        with inlinemap.many_names() if together else nullcontext():
            found = [place.address for place in debugger.resolve_location("'main(int, char**)'")]
    finally:
        debugger.close()
    assert found == entry and len(entry) == 1


def test_rbreak_of_a_cxx_program_before_run(split: Path) -> None:
    """Every function: the PLT stubs by their natural names (set by them), main at its entry,
    a template's inlined copies by their print names."""
    got = output_like_gdb(split, ["rbreak .", "info breakpoints"])
    assert "<operator new(unsigned long)@plt>" in got and "in main(int, char**) at" in got


def test_library_frames_and_plt_stubs_are_named_as_gdb_names_them(streams: Path) -> None:
    got = output_like_gdb(streams, ["break '_Znwm@plt'", "run", "bt 1", "info symbol $pc", "info breakpoints",
                                    "catch syscall write", "continue", "bt"])  # fmt: skip
    assert "in operator new(unsigned long)@plt ()" in got
    assert "operator new(unsigned long)@plt in section .plt" in got
    assert "<operator new(unsigned long)@plt>" in got  # the locations, as gdb's
    assert "std::basic_ostream<char, std::char_traits<char> >::flush() () from" in got


def test_a_plt_stub_is_found_by_its_natural_name(streams: Path) -> None:
    """Before `run` (the program's symbols alone): the stub, by its name or its function's."""
    got = output_like_gdb(streams, ["break 'operator new(unsigned long)@plt'", "break 'operator new(unsigned long)'",
                                    "info breakpoints"])  # fmt: skip
    assert got.count("<operator new(unsigned long)@plt>") == 2


def test_an_optimized_out_argument_a_printer_shows_is_dots_in_a_frame_line(split: Path) -> None:
    """`bt` at -O2 in std::vector's constructor: its std::initializer_list argument, optimized
    out, is `__l=...` as any struct under `print frame-arguments scalars` (it was `__l=`,
    the printer's empty summary)."""
    got = output_like_gdb(split, ["break '_Znwm@plt'", "run", "bt"])
    assert "__l=...," in got


def test_a_parameter_list_picks_its_overload_or_none(split: Path) -> None:
    """`main(double)` is no function of the program (gdb: not defined); it set a breakpoint
    at main, whose parameters the search for its DWARF definition did not compare."""
    got = output_like_gdb(split, ["break main(double)", "break main(void)", "break main(int,char**)", "info breakpoints"])
    assert got.count('Function "main') == 2 and got.count("Breakpoint ") == 1


def test_a_name_finds_the_librarys_functions_by_their_demangled_names(library_names: Path) -> None:
    """After `run` (libstdc++ loaded, no debug info of its own): `break flush` at the
    program's Sink::flush and ns::flush (their DWARF), libstdc++'s char and wchar_t
    basic_ostream::flush, its std::flush<...> manipulators and the PLT stubs; a
    parameter list leaves the stubs and manipulators out; a scope, the manipulators
    (gdb: `std::flush` is not defined); `ostream` names no class, `std::ostream` the
    typedef the program's DWARF defines (`std::string`'s class is std::__cxx11's)."""
    spellings = ["flush", "write", "push_back", "flush()", "std::flush", "ostream::flush",
                 "basic_ostream<char, std::char_traits<char> >::flush", "'std::basic_ostream<char, std::char_traits<char> >::write(char const*, long)'",
                 "std::ostream::write(char const*, long)", "std::string::size"]  # fmt: skip
    got = output_like_gdb(library_names, ["break main", "run", *(f"break {s}" for s in spellings), "info breakpoints",
                                          "continue", "continue", "continue", "continue", "bt 1"])  # fmt: skip
    assert "<std::basic_ostream<char, std::char_traits<char> >::flush()@plt>" in got
    assert "<std::basic_ostream<wchar_t, std::char_traits<wchar_t> >::write(wchar_t const*, long)>" in got
    assert "std::flush<char, std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&)>" in got
    assert 'Function "std::flush" not defined.' in got and 'Function "ostream::flush" not defined.' in got
    assert "in Sink::flush() at" in got and "in ns::flush(int) at" in got
    quoted, typedef = (re.search(rf"^Breakpoint {n} at (0x[0-9a-f]+)$", got, re.M) for n in (7, 8))
    assert quoted and typedef and quoted[1] == typedef[1], got  # the one method, by either name
    assert 'Function "std::string::size" not defined.' in got
    assert "Breakpoint 3.2, Sink::write (this=" in got and "Breakpoint 2.2, ns::flush (x=4)" in got


def test_a_name_set_before_run_gains_the_librarys_functions_at_its_load(library_names: Path) -> None:
    """Before `run` the program's symbols alone (its PLT stub and its own functions); the
    library's methods are added as it loads, and a stop in one is named by its symbol."""
    got = output_like_gdb(library_names, ["break write", "info breakpoints", "run", "info breakpoints",
                                          "continue", "continue", "continue", "bt 1"])  # fmt: skip
    assert got.count("<std::basic_ostream<char, std::char_traits<char> >::write(char const*, long)@plt>") == 2
    assert "Breakpoint 1.1, 0x" in got  # the program's stub, then the method it calls:
    assert "Breakpoint 1.4, 0x" in got and "in std::basic_ostream<char, std::char_traits<char> >::write(char const*, long) () from" in got


def test_a_library_variable_the_program_declares_is_at_its_copy(library_names: Path) -> None:
    """std::cout, declared in the program's DWARF (no location) and defined in libstdc++
    (no debug info): its address is the program's copy (`_ZSt4cout`, by its linkage name),
    shown by its demangled symbol with its version, as gdb's; it was "optimized out"."""
    got = output_like_gdb(library_names, ["break main", "run", "print &std::cout", "info address std::cout",
                                          "info symbol &std::cout", "output &std::cout"])  # fmt: skip
    assert re.search(r"= \(std::ostream \*\) 0x[0-9a-f]+ <std::cout@GLIBCXX_3\.4>", got), got
    assert 'Symbol "std::cout" is static storage at address 0x' in got
    assert "std::cout@GLIBCXX_3.4 in section .bss of" in got
