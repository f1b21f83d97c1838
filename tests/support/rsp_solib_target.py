"""The RSP proxy's solib-target mode (rsp_proxy.py forwards units; this one rewrites a
conversation): between a client and Linux gdbserver it makes the target look like one
without an SVR4 loader, as Windows gdbserver or an embedded stub is. qSupported offers
qXfer:libraries:read instead of qXfer:libraries-svr4:read, answered by the proxy from the
svr4 list it asks gdbserver for (each library at its first segment's address); reads of
the program's DT_DEBUG entry and of the loader's `_r_debug` fail (no link map to walk);
and a breakpoint of the proxy's own at the loader's `_dl_debug_state` comes back to the
client as a `library` stop, as such stubs report a library loaded."""

from __future__ import annotations

import queue
import socket
import struct
import threading
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection
from elftools.elf.segments import InterpSegment

from tests.support.rsp_proxy import Units, checksummed, listening, shut

AT_BASE = 7
RESUMES = (b"vCont;c", b"vCont;s", b"vCont;r", b"c", b"s", b"C", b"S")


def _body(unit: bytes) -> bytes | None:
    return unit[1:-3] if unit[:1] == b"$" else None


def _expanded(data: bytes) -> bytes:
    """A packet's body without its runs (`X*N`: N - 29 more X)."""
    runs, at = bytearray(), 0
    while at < len(data):
        if data[at] == 0x2A:
            runs += runs[-1:] * (data[at + 1] - 29)
            at += 2
        else:
            runs.append(data[at])
            at += 1
    return bytes(runs)


def _unescaped(data: bytes) -> bytes:
    """Binary data as the stub sends it: runs, `}` then the byte xor 0x20."""
    out, escaped = bytearray(), False
    for byte in _expanded(data):
        if escaped:
            out.append(byte ^ 0x20)
            escaped = False
        elif byte == 0x7D:
            escaped = True
        else:
            out.append(byte)
    return bytes(out)


def _console_output(body: bytes) -> bool:
    """`O` + hex: output before a reply, not one."""
    return len(body) > 1 and body[:1] == b"O" and all(c in b"0123456789abcdef" for c in body[1:])


def _symbol(path: str, name: str) -> int:
    with open(path, "rb") as file:
        for section in ELFFile(file).iter_sections():
            if isinstance(section, SymbolTableSection):
                for symbol in section.iter_symbols():
                    if symbol.name == name:
                        return int(symbol["st_value"])
    raise LookupError(f"no {name} in {path}")


def _first_load(path: str) -> int:
    with open(path, "rb") as file:
        return min(
            int(s["p_vaddr"]) for s in ELFFile(file).iter_segments() if s["p_type"] == "PT_LOAD"
        )


def _allocated(path: str) -> int:
    """How many sections of the file are allocated (SHF_ALLOC)."""
    with open(path, "rb") as file:
        return sum(1 for s in ELFFile(file).iter_sections() if int(s["sh_flags"]) & 2)


def _dynamic(path: str) -> tuple[int, int, str]:
    with open(path, "rb") as file:
        elf = ELFFile(file)
        segment = next(s for s in elf.iter_segments() if s["p_type"] == "PT_DYNAMIC")
        interp = next(s for s in elf.iter_segments() if isinstance(s, InterpSegment))
        assert elf["e_type"] == "ET_EXEC", (
            "a program at its link-time address (gdb reads no qOffsets)"
        )
        return int(segment["p_vaddr"]), int(segment["p_memsz"]), str(interp.get_interp_name())


@dataclass
class _Link:
    client: socket.socket
    stub: socket.socket
    program: Path
    interp: str = ""
    acks: bool = True
    private: queue.Queue[bytes] | None = None
    asked: bytes = b""  # the last packet forwarded from the client
    blocked: list[tuple[int, int]] = field(default_factory=list)  # [start, end) reads fail
    r_brk: int | None = None
    armed: bool = False
    document: bytes = b""
    library_stops: int = 0
    pending: int = 0  # the client's requests gdbserver has not answered yet
    answered: threading.Condition = field(default_factory=threading.Condition)
    at_trap: bytes = b""  # the thread stopped at our trap, to step over it at its resume
    sections: bool = False  # list each library by its allocated sections, not its segment
    svr4: bool = False  # the svr4 list still offered (and answered) beside the stub's own list

    # --- the proxy's own requests to gdbserver, while the client waits ------------------
    def settle(self) -> None:
        """Until gdbserver has answered what the client asked before (a client may send
        several requests before reading their replies)."""
        with self.answered:
            self.answered.wait_for(lambda: self.pending == 0, timeout=30)

    def ask(self, body: bytes) -> bytes:
        self.settle()
        self.private = queue.Queue()
        try:
            self.stub.sendall(checksummed(body))
            reply = self.private.get(timeout=30)
        finally:
            self.private = None
        if self.acks:
            self.stub.sendall(b"+")
        body_of = _body(reply)
        assert body_of is not None
        return body_of

    def xfer(self, obj: bytes) -> bytes:
        data = b""
        while True:
            reply = self.ask(b"qXfer:%s:read::%x,%x" % (obj, len(data), 0x3000))
            assert reply[:1] in (b"m", b"l"), reply
            data += _unescaped(reply[1:])
            if reply[:1] == b"l":
                return data

    def answer(self, body: bytes) -> None:
        self.settle()
        if self.acks:
            self.client.sendall(b"+")
        self.client.sendall(checksummed(body))

    def learn(self) -> int:
        """The addresses to refuse and the trap's (returned), once the program runs."""
        if self.r_brk is not None:
            return self.r_brk
        start, size, self.interp = _dynamic(str(self.program))
        auxv = self.xfer(b"auxv")
        pairs = dict(struct.iter_unpack("<QQ", auxv))
        base = pairs[AT_BASE]
        r_debug = base + _symbol(self.interp, "_r_debug")
        self.blocked = [(start, start + size), (r_debug, r_debug + 40)]
        self.r_brk = base + _symbol(self.interp, "_dl_debug_state")
        return self.r_brk

    def library_list(self) -> bytes:
        """gdbserver's svr4 list as gdb's library-list.dtd has it (files only: no vDSO)."""
        root = ElementTree.fromstring(self.xfer(b"libraries-svr4"))
        out = ['<library-list version="1.0">']
        for node in root.iter("library"):
            name = node.get("name", "")
            if not name.startswith("/") or not Path(name).is_file():
                continue
            bias = int(node.get("l_addr", "0"), 16)
            if self.sections:  # gdb's solib-target adds each to its section's link-time address
                places = "".join(f'<section address="{bias:#x}"/>' for _ in range(_allocated(name)))
            else:
                places = f'<segment address="{bias + _first_load(name):#x}"/>'
            out.append(f'<library name="{name}">{places}</library>')
        out.append("</library-list>")
        return "".join(out).encode()

    # --- the client's packets -------------------------------------------------------------
    def from_client(self, unit: bytes) -> None:
        body = _body(unit)
        if body is None:
            self.stub.sendall(unit)
            return
        if body.startswith(b"qXfer:libraries:read::"):
            offset, length = (int(part, 16) for part in body.rsplit(b":", 1)[1].split(b","))
            if offset == 0:
                self.document = self.library_list()
            chunk = self.document[offset : offset + length]
            self.answer((b"m" if offset + length < len(self.document) else b"l") + chunk)
            return
        if body[:1] == b"m" and b"," in body:
            self.learn()
            address, size = (int(part, 16) for part in body[1:].split(b","))
            if any(address < end and start < address + size for start, end in self.blocked):
                self.answer(b"E14")  # no loader's structures here
                return
        if body.startswith(RESUMES) and not self.armed and not self.svr4:
            self.armed = True
            assert self.ask(b"Z0,%x,1" % self.learn()) == b"OK"
        elif body.startswith(RESUMES) and self.at_trap:
            # gdbserver leaves a client's breakpoint to the client to step over: ours
            assert (reply := self.ask(b"z0,%x,1" % self.learn())) == b"OK", reply
            assert (reply := self.ask(b"vCont;s:" + self.at_trap))[:1] == b"T", reply
            assert (reply := self.ask(b"Z0,%x,1" % self.learn())) == b"OK", reply
            self.at_trap = b""
        self.asked = body
        with self.answered:
            self.pending += 1
        self.stub.sendall(unit)

    # --- gdbserver's --------------------------------------------------------------------
    def to_client(self, unit: bytes) -> bytes:
        private = self.private
        if private is not None:
            if unit[:1] == b"$":
                private.put(unit)
            return b""
        body = _body(unit)
        if body is None:
            return unit
        if not _console_output(body):
            with self.answered:
                self.pending = max(0, self.pending - 1)
                self.answered.notify_all()
        if self.asked.startswith(b"qSupported"):
            features = [
                f
                for f in body.split(b";")
                if self.svr4 or not f.startswith(b"qXfer:libraries-svr4:read")
            ]
            return checksummed(b";".join([*features, b"qXfer:libraries:read+"]))
        if self.asked == b"QStartNoAckMode" and body == b"OK":
            self.acks = False
        # gdbserver run-length encodes its replies: a pid such as 0x1111 comes as `p1* .1* `
        plain = _expanded(body)
        trap = plain[:1] == b"T" and self.r_brk is not None and self._pc(plain) == self.r_brk
        if trap and not self.svr4:
            self.library_stops += 1
            self.at_trap = self._thread(plain)
            return checksummed(plain.replace(b"swbreak:;", b"") + b"library:;")
        return unit

    @staticmethod
    def _thread(plain: bytes) -> bytes:
        return next(pair[7:] for pair in plain.split(b";") if pair.startswith(b"thread:"))

    @staticmethod
    def _pc(plain: bytes) -> int | None:
        for pair in plain[3:].split(b";"):
            key, _, value = pair.partition(b":")
            if key == b"10":  # rip, as gdbserver expedites it on x86-64
                return int.from_bytes(bytes.fromhex(value.decode()), "little")
        return None


@dataclass
class SolibTargetProxy:
    port: int
    links: list[_Link] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def library_stops(self) -> int:
        return sum(link.library_stops for link in self.links)


def _pump_client(link: _Link, units: Units) -> None:
    try:
        while data := link.client.recv(65536):
            for unit in units.feed(data):
                link.from_client(unit)
    except OSError:
        pass
    finally:
        _shut(link)


def _pump_stub(link: _Link, units: Units) -> None:
    try:
        while data := link.stub.recv(65536):
            for unit in units.feed(data):
                changed = link.to_client(unit)
                if changed:
                    link.client.sendall(changed)
    except OSError:
        pass
    finally:
        _shut(link)


def _shut(link: _Link) -> None:
    shut((link.client, link.stub))


@contextmanager
def solib_target_proxy(upstream: str, program: Path, *, sections: bool = False,
                       svr4: bool = False) -> Iterator[SolibTargetProxy]:  # fmt: skip
    """Listen on a loopback port; the first client is joined to gdbserver at `upstream`
    (debugging `program`, a non-PIE executable) through the solib-target rewriting;
    `sections`: libraries listed by their allocated sections' places; `svr4`: gdbserver's
    svr4 list offered too (a Linux stub whose loader's structures cannot be read)."""
    proxy = SolibTargetProxy(0)

    def join(client: socket.socket, stub: socket.socket) -> list[Callable[[], None]]:
        link = _Link(client, stub, program, sections=sections, svr4=svr4)
        proxy.links.append(link)
        return [partial(_pump_client, link, Units()), partial(_pump_stub, link, Units())]

    with listening(upstream, join, []) as port:
        proxy.port = port
        yield proxy
