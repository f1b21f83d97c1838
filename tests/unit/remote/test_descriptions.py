"""Target descriptions with xi:include, and the register view that maps them onto the
engine's names and DWARF numbers by name."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.ptrace.binding import REGISTER_NAMES
from aliceserver.debuggers.remote import tdesc
from aliceserver.debuggers.remote.errors import RemoteError
from aliceserver.debuggers.remote.registers import RegisterView
from aliceserver.debuggers.symbols.dwarf import x86_registers as x86

_TARGET = b"""<?xml version="1.0"?>
<!DOCTYPE target SYSTEM "gdb-target.dtd">
<target version="1.0">
  <architecture>i386:x86-64</architecture>
  <osabi>GNU/Linux</osabi>
  <xi:include href="core.xml"/>
  <xi:include href="sse.xml"/>
  <xi:include href="linux.xml"/>
  <xi:include href="avx.xml"/>
</target>"""
_GENERAL = [
    "rax",
    "rbx",
    "rcx",
    "rdx",
    "rsi",
    "rdi",
    "rbp",
    "rsp",
    *(f"r{n}" for n in range(8, 16)),
    "rip",
]
_CORE = (
    '<feature name="org.gnu.gdb.i386.core">'
    + "".join(f'<reg name="{n}" bitsize="64" type="int64"/>' for n in _GENERAL)
    + '<reg name="eflags" bitsize="32" type="i386_eflags"/>'
    + "".join(f'<reg name="{n}" bitsize="32" type="int32"/>' for n in ("cs", "ss", "ds", "es", "fs", "gs"))
    + "".join(f'<reg name="st{i}" bitsize="80" type="i387_ext"/>' for i in range(8))
    + "".join(f'<reg name="{n}" bitsize="32" type="int" group="float"/>'
              for n in ("fctrl", "fstat", "ftag", "fiseg", "fioff", "foseg", "fooff", "fop"))
    + "</feature>"
)  # fmt: skip
_SSE = (
    '<feature name="org.gnu.gdb.i386.sse">'
    + "".join(f'<reg name="xmm{i}" bitsize="128" type="vec128"/>' for i in range(16))
    + '<reg name="mxcsr" bitsize="32" type="i386_mxcsr" group="vector"/></feature>'
)
# Numbered out of order on purpose: the `g` layout follows the numbers.
_LINUX = (
    '<feature name="org.gnu.gdb.i386.linux">'
    '<reg name="orig_rax" bitsize="64" type="int" regnum="57"/>'
    '<reg name="fs_base" bitsize="64" type="int" regnum="58"/>'
    '<reg name="gs_base" bitsize="64" type="int"/></feature>'
)
_AVX = (
    '<feature name="org.gnu.gdb.i386.avx">'
    + "".join(f'<reg name="ymm{i}h" bitsize="128" type="uint128"/>' for i in range(16))
    + "</feature>"
)
_FILES = {"target.xml": _TARGET, "core.xml": _CORE.encode(), "sse.xml": _SSE.encode(),
          "linux.xml": _LINUX.encode(), "avx.xml": _AVX.encode()}  # fmt: skip


def _description() -> tdesc.TargetDescription:
    return tdesc.parse(lambda annex: _FILES[annex])


def test_includes_numbers_offsets_and_groups() -> None:
    described = _description()
    assert described.architecture == "i386:x86-64" and described.osabi == "GNU/Linux"
    assert described.features[0] == "org.gnu.gdb.i386.core" and len(described.features) == 4
    assert described["rax"].number == 0 and described["rip"].number == 16
    assert described["xmm0"].number == described["mxcsr"].number - 16
    assert (described["orig_rax"].number, described["gs_base"].number) == (57, 59)
    assert described["st0"].size == 10 and described["fctrl"].group == "float"
    numbers = [r.number for r in described]
    assert numbers == sorted(numbers)
    offsets = [r.offset for r in described]
    assert offsets == [sum(r.size for r in described.registers[:i]) for i in range(len(offsets))]
    assert described.g_size == offsets[-1] + described.registers[-1].size


def test_a_description_that_includes_itself_is_refused() -> None:
    with pytest.raises(RemoteError):
        tdesc.parse(lambda annex: b'<target><xi:include href="target.xml"/></target>')
    with pytest.raises(RemoteError):
        tdesc.parse(lambda annex: b"<target><reg name=")


def _reader(described: tdesc.TargetDescription) -> dict[str, bytes]:
    # Each register's bytes say which register they are: its number, repeated.
    return {r.name: bytes([r.number & 0xFF]) * r.size for r in described}


def test_the_view_maps_by_name_onto_the_engines_registers() -> None:
    described = _description()
    view = RegisterView(described)
    values = _reader(described)
    general = view.general(values.__getitem__)
    assert set(general) == set(REGISTER_NAMES)
    assert general["rip"] == int.from_bytes(values["rip"], "little")
    assert general["orig_rax"] == int.from_bytes(bytes([57]) * 8, "little")
    floats = view.float_registers(values.__getitem__)
    assert floats[x86.XMM0 + 3] == values["xmm3"] and floats[x86.ST0 + 7] == values["st7"]
    assert floats[x86.FCTRL] == values["fctrl"][:2] and floats[x86.MXCSR] == values["mxcsr"]
    extended = view.extended_registers(values.__getitem__)
    assert extended[x86.YMM0 + 5] == values["xmm5"] + values["ymm5h"]
    assert not any(number >= x86.ZMM0 for number in extended)  # no AVX-512 described
    vector = view.vector(values.__getitem__)
    assert vector.ymm[2] == values["xmm2"] + values["ymm2h"]
    assert view.encode_vector("ymm1", bytes(range(32))) == [
        ("xmm1", bytes(range(16))),
        ("ymm1h", bytes(range(16, 32))),
    ]
    assert view.encode_general("eflags", 0x246) == ("eflags", b"\x46\x02\0\0")


def test_another_architecture_keeps_its_own_names() -> None:
    xml = (b'<target><architecture>aarch64</architecture><feature name="org.gnu.gdb.aarch64.core">'
           + b"".join(b'<reg name="x%d" bitsize="64"/>' % i for i in range(31))
           + b'<reg name="sp" bitsize="64" type="data_ptr"/><reg name="pc" bitsize="64" type="code_ptr"/>'
           + b'<reg name="cpsr" bitsize="32"/></feature>'
           + b'<feature name="org.gnu.gdb.aarch64.fpu"><reg name="v0" bitsize="128"/></feature></target>')  # fmt: skip
    described = tdesc.parse(lambda annex: xml)
    view = RegisterView(described)
    assert view.general_names[:2] == ("x0", "x1") and "pc" in view.general_names
    assert "v0" not in view.general_names
    assert described["pc"].number == 32
    # aarch64's v registers are its floats, by their DWARF numbers (AADWARF64: 64 + n).
    assert view.float_registers(lambda name: name.encode()) == {64: b"v0"}
