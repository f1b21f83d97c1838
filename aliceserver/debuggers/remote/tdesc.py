"""Target descriptions (gdb's `target.xml`, qXfer:features:read): the registers a stub
offers, by name, number, size, type and group, in the order of its `g` packet. Nothing
here knows a CPU: the architecture's own names come from its description, and
registers.py maps them onto the engine's."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from aliceserver.debuggers.remote.errors import RemoteError

_XINCLUDE = "{http://www.w3.org/2001/XInclude}include"
_MAX_INCLUDES = 64  # a description that includes itself ends here
# gdb's descriptions use `xi:include` without declaring `xi`: their DTD (gdb-target.dtd)
# declares it as a fixed attribute, and expat reads no DTD. Declare it on the root.
_ROOT_TAG = re.compile(rb"<(target|feature)\b")


@dataclass(frozen=True, slots=True)
class RegisterInfo:
    name: str
    number: int  # the stub's number: `p`/`P` packets, `T` stop replies
    bitsize: int
    type: str  # int64, code_ptr, i387_ext, vec128, a flags type of the description...
    group: str  # general, float, vector, system, or "" where the description says none
    feature: str  # org.gnu.gdb.i386.core...
    offset: int  # its byte offset in a `g` reply (registers in number order)

    @property
    def size(self) -> int:
        return (self.bitsize + 7) // 8


@dataclass(frozen=True, slots=True)
class TypeInfo:
    """A type the description defines (`<vector>`, `<union>`, `<flags>`, `<struct>`)."""

    kind: str  # vector, union, flags, struct
    element: str = ""  # a vector's element type
    count: int = 0  # a vector's element count
    size: int = 0  # flags' and structs' size in bytes (0 where not given)
    fields: tuple[tuple[str, str, int, int], ...] = ()  # (name, type, start bit, end bit)


@dataclass(frozen=True, slots=True)
class TargetDescription:
    architecture: str  # "i386:x86-64", "aarch64"
    osabi: str
    registers: tuple[RegisterInfo, ...]  # by number
    features: tuple[str, ...]
    types: dict[str, TypeInfo] = field(default_factory=dict, compare=False, repr=False)
    _by_name: dict[str, RegisterInfo] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name.update({register.name: register for register in self.registers})

    def get(self, name: str) -> RegisterInfo | None:
        return self._by_name.get(name)

    def __getitem__(self, name: str) -> RegisterInfo:
        found = self._by_name.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[RegisterInfo]:
        return iter(self.registers)

    @property
    def g_size(self) -> int:
        """Bytes of a `g` reply holding every register."""
        return sum(register.size for register in self.registers)

    def in_feature(self, feature: str) -> list[RegisterInfo]:
        return [register for register in self.registers if register.feature == feature]


@dataclass(slots=True)
class _Reg:
    name: str
    number: int
    bitsize: int
    type: str
    group: str
    feature: str


def parse(fetch: Callable[[str], bytes], annex: str = "target.xml") -> TargetDescription:
    """The description `annex` names, with what it includes (`xi:include href=...`) read
    through `fetch` (qXfer:features:read of that annex)."""
    state = _Parse(fetch)
    state.document(annex)
    regs = sorted(state.regs, key=lambda reg: reg.number)
    offset = 0
    registers: list[RegisterInfo] = []
    for reg in regs:
        registers.append(RegisterInfo(reg.name, reg.number, reg.bitsize, reg.type, reg.group,
                                      reg.feature, offset))  # fmt: skip
        offset += (reg.bitsize + 7) // 8
    return TargetDescription(
        state.architecture, state.osabi, tuple(registers), tuple(state.features), state.types
    )


class _Parse:
    def __init__(self, fetch: Callable[[str], bytes]) -> None:
        self.fetch = fetch
        self.architecture = ""
        self.osabi = ""
        self.features: list[str] = []
        self.regs: list[_Reg] = []
        self.types: dict[str, TypeInfo] = {}
        self.next_number = 0
        self.includes = 0

    def document(self, annex: str) -> None:
        self.includes += 1
        if self.includes > _MAX_INCLUDES:
            raise RemoteError(f"The target description includes too many files ({annex}).")
        try:
            root = ElementTree.fromstring(_with_xinclude_namespace(self.fetch(annex)))
        except ElementTree.ParseError as error:
            raise RemoteError(f"Bad target description {annex}: {error}.") from None
        self.node(root, "")

    def node(self, node: ElementTree.Element, feature: str) -> None:
        tag = node.tag
        if tag == _XINCLUDE:
            href = node.get("href")
            if href:
                self.document(href)
        elif tag == "architecture" and node.text:
            self.architecture = node.text.strip()
        elif tag == "osabi" and node.text:
            self.osabi = node.text.strip()
        elif tag == "feature":
            name = node.get("name", "")
            self.features.append(name)
            for child in node:
                self.node(child, name)
        elif tag == "reg":
            self.register(node, feature)
        elif tag in ("vector", "union", "flags", "struct") and node.get("id"):
            self.types[node.get("id", "")] = _type(tag, node)
        elif tag == "target":
            for child in node:
                self.node(child, feature)

    def register(self, node: ElementTree.Element, feature: str) -> None:
        name = node.get("name")
        bitsize = node.get("bitsize")
        if not name or not bitsize or not bitsize.isdigit():
            raise RemoteError(
                f"A register without a name or size in the target description: {node.attrib}."
            )
        number = int(node.get("regnum", self.next_number))
        self.next_number = number + 1
        group = node.get("group", "")
        self.regs.append(_Reg(name, number, int(bitsize), node.get("type", "int"), group, feature))


def _type(kind: str, node: ElementTree.Element) -> TypeInfo:
    def number(text: str | None) -> int:
        return int(text) if text and text.isdigit() else -1

    fields = tuple((f.get("name", ""), f.get("type", ""), number(f.get("start")), number(f.get("end")))
                   for f in node if f.tag == "field")  # fmt: skip
    return TypeInfo(kind, node.get("type", ""), max(number(node.get("count")), 0),
                    max(number(node.get("size")), 0), fields)  # fmt: skip


def _with_xinclude_namespace(document: bytes) -> bytes:
    if b"xi:" not in document or b"xmlns:xi" in document:
        return document
    return _ROOT_TAG.sub(rb'<\1 xmlns:xi="http://www.w3.org/2001/XInclude"', document, count=1)
