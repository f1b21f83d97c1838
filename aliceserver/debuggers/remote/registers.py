"""A stub's registers in the engine's terms. The description (tdesc.py) names them; here
they become the engine's general registers by name (binding.REGISTER_NAMES on x86-64) and
its float/vector registers by DWARF number (symbols/dwarf/x86_registers.py), matched by
name, never by position. Another architecture offers its description's integer registers
by their own names, and aarch64 its v0-v31 by their DWARF numbers (64-95) as its floats.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from aliceserver.debuggers.arch.aarch64 import V0
from aliceserver.debuggers.model import VectorRegisters
from aliceserver.debuggers.ptrace.binding import REGISTER_NAMES
from aliceserver.debuggers.remote.regtypes import register_type
from aliceserver.debuggers.remote.tdesc import TargetDescription
from aliceserver.debuggers.symbols.dwarf import x86_registers as x86
from aliceserver.debuggers.symbols.dwarf.types import Type
from aliceserver.errors import TargetError

X86_64 = "i386:x86-64"
Read = Callable[[str], bytes]  # a register's raw bytes (target order) by description name

# gdb's descriptions hold the x87 control words as 32 bits; FXSAVE (and so regsets.py,
# which the ptrace and core backends share) holds some in 16.
_CONTROL_WIDTH = {"fctrl": 2, "fstat": 2, "ftag": 2, "fop": 2, "fiseg": 4, "fioff": 4,
                  "foseg": 4, "fooff": 4, "mxcsr": 4}  # fmt: skip


# aarch64's fpu status and control words: integers, read with the general registers.
_STATUS_WORDS = ("fpsr", "fpcr")


def _float_names(count: int, prefix: str) -> list[str]:
    return [f"{prefix}{i}" for i in range(count)]


class RegisterView:
    """The engine's register sets over one description."""

    def __init__(self, description: TargetDescription) -> None:
        self.description = description
        self.x86_64 = description.architecture == X86_64 or (
            not description.architecture and "rip" in description
        )
        if self.x86_64:
            self.general_names = tuple(name for name in REGISTER_NAMES if name in description)
        else:  # the integer registers of the core feature, by the description's names
            core = description.features[0] if description.features else ""
            self.general_names = tuple(
                r.name for r in description.in_feature(core) if r.bitsize <= 64
            ) + tuple(name for name in _STATUS_WORDS if name in description)

    def general(self, read: Read) -> Mapping[str, int]:
        return _LazyGeneral(self.general_names, read)

    def encode_general(self, name: str, value: int) -> tuple[str, bytes]:
        x87 = name in self.description and self.description[name].type == "i387_ext"
        if name not in self.general_names and not self._simd(name) and not x87:
            raise TargetError(f"Invalid register `{name}'")
        bits = 128 if self._simd(name) else self.description[name].bitsize
        # over SVE, vN is zN's low 128 bits, the rest zeroed as gdb writes it (architectural)
        target = name if name in self.description else f"z{name[1:]}"
        size = self.description[target].size
        return target, (value & ((1 << bits) - 1)).to_bytes(size, "little")

    def _simd(self, name: str) -> bool:
        """aarch64's vN: the description's own, or the low half of SVE's zN."""
        number = name[1:]
        if self.x86_64 or name[:1] != "v" or not number.isdigit():
            return False
        return name in self.description or f"z{number}" in self.description

    def float_registers(self, read: Read) -> dict[int, bytes]:
        """xmm0-15, st0-7 and the x87/SSE control words by DWARF number, as regsets.py."""
        if not self.x86_64:
            return self._vector_v(read)
        found: dict[int, bytes] = {}
        for name in (*_float_names(16, "xmm"), *_float_names(8, "st"), *_CONTROL_WIDTH):
            if name in self.description:
                spec = x86.lookup(name, lambda: False)
                assert spec is not None
                found[spec.regno] = read(name)[: _CONTROL_WIDTH.get(name, 64)]
        return found

    def _vector_v(self, read: Read) -> dict[int, bytes]:
        """aarch64's v0-v31 (16 bytes each): the fpu feature's own, or with SVE the low
        128 bits of z0-z31 (gdb's v registers are pseudo registers over them there)."""
        found: dict[int, bytes] = {}
        for i in range(32):
            if f"v{i}" in self.description:
                found[V0 + i] = read(f"v{i}")
            elif f"z{i}" in self.description:
                found[V0 + i] = read(f"z{i}")[:16]
        return found

    def extended_registers(self, read: Read) -> dict[int, bytes]:
        """ymm0-15 (xmmN and its upper half ymmNh) and, where described, AVX-512's k0-7,
        xmm16-31, ymm16-31 and zmm0-31, by the numbers regsets.py gives them."""
        if not self.x86_64 or "ymm0h" not in self.description:
            return {}
        found: dict[int, bytes] = {}
        wide = "zmm0h" in self.description
        for i in range(32):
            if f"xmm{i}" not in self.description or f"ymm{i}h" not in self.description:
                continue
            xmm = read(f"xmm{i}")
            ymm = xmm + read(f"ymm{i}h")
            found[x86.YMM0 + i] = ymm
            if i >= 16:
                found[x86.XMM16 + i - 16] = xmm
            if wide and f"zmm{i}h" in self.description:
                found[x86.ZMM0 + i] = ymm + read(f"zmm{i}h")
        for i in range(8):
            if f"k{i}" in self.description:
                found[x86.K0 + i] = read(f"k{i}")
        return found

    def vector(self, read: Read) -> VectorRegisters:
        if not self.x86_64 or "xmm0" not in self.description:
            raise TargetError("The target has no x87/SSE registers.")

        def number(name: str) -> int:
            return int.from_bytes(read(name), "little") if name in self.description else 0

        control = {name: number(name) for name in ("fctrl", "fstat", "ftag", "fop", "mxcsr")}
        control["fioff"] = number("fiseg") << 32 | number("fioff")  # FXSAVE's 64-bit pointers
        control["fooff"] = number("foseg") << 32 | number("fooff")
        st = tuple(read(name) for name in _float_names(8, "st"))
        xmm = tuple(read(name) for name in _float_names(16, "xmm"))
        ymm: tuple[bytes, ...] = ()
        if "ymm0h" in self.description:
            ymm = tuple(xmm[i] + read(f"ymm{i}h") for i in range(16))
        return VectorRegisters(control, st, xmm, ymm)

    def encode_vector(self, name: str, data: bytes) -> list[tuple[str, bytes]]:
        """The description's registers that writing `name` (xmmN, ymmN, stN, a control
        word) sets, with their bytes."""
        described = self.description.get(name)
        if not self.x86_64:  # a register of the description, as it is (SVE's z0-31, vg)
            if described is None:
                raise TargetError(f"Invalid register `{name}'")
            return [(name, data[: described.size].ljust(described.size, b"\0"))]
        kind, number = name[:3], name[3:]
        if kind in ("ymm", "zmm") and number.isdigit():
            # the description's pieces of it: xmmN, ymmNh and for zmmN zmmNh
            pieces = [f"xmm{number}", f"ymm{number}h", f"zmm{number}h"][: 2 if kind == "ymm" else 3]
            if all(piece in self.description for piece in pieces):
                size = 32 if kind == "ymm" else 64
                if len(data) != size:
                    raise TargetError(f"{name} takes {size} bytes, not {len(data)}")
                slices = ((0, 16), (16, 32), (32, 64))
                return [
                    (piece, data[start:end])
                    for piece, (start, end) in zip(pieces, slices, strict=False)
                ]
        register = self.description.get(name)
        if register is None or name not in (
            *_float_names(32, "xmm"),
            *_float_names(8, "st"),
            *_float_names(8, "k"),
            *_CONTROL_WIDTH,
        ):
            if described is not None and x86.lookup(name, lambda: True) is None:  # qemu's cr0...
                return [(name, data[: described.size].ljust(described.size, b"\0"))]
            raise TargetError(f"Invalid register `{name}'")
        if name in _CONTROL_WIDTH:
            return [(name, data[: register.size].ljust(register.size, b"\0"))]
        if len(data) != register.size:
            raise TargetError(f"{name} takes {register.size} bytes, not {len(data)}")
        return [(name, data)]


def described_register(description: TargetDescription, name: str, read: Read) -> tuple[Type, bytes] | None:
    """Register `name` of the description with the type gdb gives it there, and its bytes;
    None where it has no such register or a type gdb builds otherwise."""
    register = description.get(name)
    if register is None:
        return None
    found = register_type(description.types, register.type, register.bitsize)
    if found is None or found.size != register.size:  # qemu's SVE p0-p15: 32 bytes typed as 256
        return None
    return found, read(name)


class _LazyGeneral(Mapping[str, int]):
    """The general registers read on demand, as the ptrace backend's LiveRegisters."""

    def __init__(self, names: tuple[str, ...], read: Read) -> None:
        self._names = names
        self._known = frozenset(names)
        self._read = read

    def __getitem__(self, name: str) -> int:
        if name not in self._known:
            raise KeyError(name)
        return int.from_bytes(self._read(name), "little")

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)
