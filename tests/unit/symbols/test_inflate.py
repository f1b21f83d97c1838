"""Compressed sections inflated only as far as reads need (inflate.py, sections.py): the
bytes read are the section's, a damaged stream is refused, and a stack's first units do
not inflate the whole of .debug_info."""

from __future__ import annotations

import random
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.dwarf.inflate import PartialInflate, WindowInflate
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.errors import TargetError
from tests.support.build import Builder

# Compressible, but not trivially: words in a random order.
_rng = random.Random(7)
DATA = b" ".join(_rng.choice([b"alpha", b"beta", b"gamma", b"delta", str(i).encode()])
                 for i in range(400_000))  # fmt: skip


def test_prefixes_are_the_data() -> None:
    partial = PartialInflate("test", zlib.compress(DATA), len(DATA))
    rng = random.Random(3)
    for end in sorted(rng.randrange(len(DATA) // 4) for _ in range(30)):
        assert bytes(partial.prefix(end)[:end]) == DATA[:end]
    assert not partial.complete
    assert partial.whole() == DATA and partial.complete
    assert bytes(partial.prefix(len(DATA) + 100)) == DATA  # past the end: all there is


def test_a_short_stream_is_refused() -> None:
    stream = zlib.compress(DATA)
    with pytest.raises(TargetError, match="decompresses to"):
        PartialInflate("test", stream[: len(stream) // 2], len(DATA)).whole()
    with pytest.raises(TargetError, match="decompresses to"):
        PartialInflate("test", stream, len(DATA) + 10).whole()  # it declares more


def test_a_longer_stream_is_refused() -> None:
    partial = PartialInflate("test", zlib.compress(DATA), len(DATA) - 10)
    assert bytes(partial.prefix(100))[:100] == DATA[:100]
    with pytest.raises(TargetError, match="decompresses to"):
        partial.whole()


def test_a_damaged_stream_is_refused() -> None:
    stream = bytearray(zlib.compress(DATA))
    stream[len(stream) // 3 : len(stream) // 3 + 8] = b"\xff" * 8
    with pytest.raises(TargetError):
        PartialInflate("test", bytes(stream), len(DATA)).whole()


def test_the_compressed_bytes_are_read_as_inflating_goes() -> None:
    stream = zlib.compress(DATA)
    asked: list[tuple[int, int]] = []

    def read(offset: int, size: int) -> bytes:
        asked.append((offset, size))
        return stream[offset : offset + size]

    partial = PartialInflate("test", read, len(DATA), len(stream))
    assert bytes(partial.prefix(100)[:100]) == DATA[:100]
    assert sum(size for _offset, size in asked) < len(stream) // 2
    assert partial.whole() == DATA


def test_windows_are_the_data_and_a_bad_stream_is_refused() -> None:
    stream = zlib.compress(DATA)
    windows = WindowInflate("test", stream, len(DATA))
    for start in range(0, len(DATA), 300_000):
        assert bytes(windows.read(start, 300_007)) == DATA[start : start + 300_007]
    with pytest.raises(ValueError):
        windows.read(0, 10)  # forward only
    for bad in (WindowInflate("test", stream[: len(stream) // 2], len(DATA)),
                WindowInflate("test", stream, len(DATA) + 10),
                WindowInflate("test", stream, len(DATA) - 10)):  # fmt: skip
        with pytest.raises(TargetError, match="decompresses to"):
            for start in range(0, len(DATA) + 10, 300_000):
                bad.read(start, 300_000)


@pytest.fixture
def compressed(builder: Builder, tmp_path: Path) -> tuple[Path, Path]:
    """(a program with zlib-compressed DWARF, the same program with it decompressed)."""
    objcopy = shutil.which("objcopy")
    if objcopy is None:
        pytest.skip("objcopy not installed")
    source = builder.build("src_inline", ("-g", "-O2"))
    packed, plain = tmp_path / "packed", tmp_path / "plain"
    subprocess.run([objcopy, "--compress-debug-sections=zlib", str(source), str(packed)], check=True)
    subprocess.run([objcopy, "--decompress-debug-sections", str(source), str(plain)], check=True)
    if not ElfSections(str(packed)).header(".debug_info", exact=True).flags & 0x800:  # type: ignore[union-attr]
        pytest.skip("objcopy did not compress .debug_info")
    return packed, plain


def test_section_reads_are_the_uncompressed_bytes(compressed: tuple[Path, Path]) -> None:
    packed, plain = (ElfSections(str(p)) for p in compressed)
    whole = plain.get(".debug_info")
    rng = random.Random(5)
    for _ in range(50):
        offset = rng.randrange(len(whole))
        size = rng.randrange(1, 300)
        assert packed.read(".debug_info", offset, size) == whole[offset : offset + size]
    assert packed.read(".debug_info", len(whole) - 4, 100) == whole[-4:]
    assert packed.get(".debug_info") == whole
    assert packed.get(".debug_line") == plain.get(".debug_line")


def test_scopes_read_through_a_compressed_section(compressed: tuple[Path, Path]) -> None:
    packed_path, plain_path = compressed
    packed, plain = DwarfUnits(ElfImage.load(str(packed_path))), DwarfUnits(ElfImage.load(str(plain_path)))
    image = ElfImage.load(str(plain_path))
    compared = 0
    for _name, low, size in image.function_symbols():
        for address in range(low, low + size, 2):
            chains = []
            for units in (packed, plain):
                cu = units.cu_for_address(address)
                found = units.function_die_at(cu, address) if cu is not None else None
                chains.append([d.offset for d in found.scopes] if found is not None else None)
            assert chains[0] == chains[1], hex(address)
            compared += chains[0] is not None
    assert compared > 20
    packed.close()
    plain.close()


def test_the_first_unit_does_not_inflate_the_whole_section(tmp_path: Path) -> None:
    gcc, objcopy = shutil.which("gcc"), shutil.which("objcopy")
    if gcc is None or objcopy is None:
        pytest.skip("gcc and objcopy needed")
    body = "int {unit}{i}(int x) {{ int y = x + {i}; long z = y * 3L; return (int)z - x; }}\n"
    for unit in ("a", "b"):
        source = "".join(body.format(unit=unit, i=i) for i in range(4000))
        (tmp_path / f"{unit}.c").write_text(source + ("int main(void) { return 0; }\n" if unit == "a" else ""))
    program = tmp_path / "prog"
    subprocess.run([gcc, "-g", "-O0", "-gz=zlib", "-o", str(program), str(tmp_path / "a.c"),
                    str(tmp_path / "b.c")], check=True)  # fmt: skip
    sections = ElfSections(str(program))
    header = sections.header(".debug_info", exact=True)
    if header is None or not header.flags & 0x800:  # SHF_COMPRESSED
        pytest.skip("gcc -gz did not compress .debug_info")
    first_unit = sections.read(".debug_info", 0, 64)
    partial = sections._partial.get(".debug_info")
    assert partial is not None and not partial.complete and ".debug_info" not in sections._inflated
    assert sections.get(".debug_info")[:64] == first_unit
