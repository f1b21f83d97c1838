"""Memory over the protocol: `x` (binary) where the stub offers it (binary-upload), else
`m` (hex); writes with `X` (binary), else `M`; each in chunks the packet size allows."""

from __future__ import annotations

from aliceserver.debuggers.remote import packets
from aliceserver.debuggers.remote.client import RemoteClient, check
from aliceserver.debuggers.remote.errors import RemoteError, RemoteUnsupported
from aliceserver.errors import TargetError

_HEADROOM = 40
_PAGE = 4096  # the request's own letters and numbers, within the packet size


class RemoteMemory:
    def __init__(self, client: RemoteClient) -> None:
        self.client = client
        self.binary_reads = client.supports("binary-upload")
        self.binary_writes = True  # until the stub answers `X` with an empty reply
        self.packets = 0  # requests sent: for tests and the benchmark

    def read(self, address: int, size: int) -> bytes:
        """`size` bytes at `address`; TargetError (gdb's words) where none can be read, the
        bytes up to the first unreadable one where some can."""
        out = bytearray()
        while len(out) < size:
            start = address + len(out)
            want = min(size - len(out), self._read_chunk())
            got = self._read_once(start, want)
            page_end = (start | (_PAGE - 1)) + 1
            if not got and start + want > page_end:
                # gdbserver fails a whole read that crosses into an unmapped page: take
                # what lies before the boundary, as ptrace's pread would.
                want = page_end - start
                got = self._read_once(start, want)
            if not got:
                break
            out += got
            if len(got) < want:
                break
        if not out and size:
            raise TargetError(f"Cannot access memory at address {address:#x}")
        return bytes(out)

    def write(self, address: int, data: bytes) -> None:
        done = 0
        while done < len(data) or not data:
            chunk = data[done : done + self._write_chunk()]
            self._write_once(address + done, chunk)
            done += len(chunk)
            if not data:
                return

    def _read_chunk(self) -> int:
        room = self.client.packet_size - _HEADROOM
        # `m` replies in hex (two characters a byte); `x` in binary, escapes at worst doubling.
        return max(room // 2, 16)

    def _write_chunk(self) -> int:
        return max((self.client.packet_size - _HEADROOM) // 2, 16)

    def _read_once(self, address: int, size: int) -> bytes:
        self.packets += 1
        if self.binary_reads:
            reply = self.client.request(b"x%x,%x" % (address, size))
            if reply.startswith(b"b"):
                return packets.unescape(reply[1:])
            if not reply:
                self.binary_reads = False
            elif _is_error(reply):
                return b""
            else:
                raise RemoteError(f"Unexpected reply to x: {reply[:40]!r}.")
        reply = self.client.request(b"m%x,%x" % (address, size))
        if _is_error(reply):
            return b""
        check(b"m", reply)
        return packets.from_hex(reply)

    def _write_once(self, address: int, data: bytes) -> None:
        self.packets += 1
        if self.binary_writes:
            body = b"X%x,%x:" % (address, len(data)) + packets.escape(data)
            reply = self.client.request(body)
            if reply == b"OK":
                return
            if reply:
                raise TargetError(f"Cannot access memory at address {address:#x}")
            self.binary_writes = False
        try:
            self.client.ok(b"M%x,%x:" % (address, len(data)) + packets.hex_bytes(data))
        except RemoteUnsupported:
            raise
        except RemoteError:
            raise TargetError(f"Cannot access memory at address {address:#x}") from None


def _is_error(reply: bytes) -> bool:
    return reply.startswith(b"E") and (reply[1:2] == b"." or len(reply) == 3)
