"""Memory over the protocol: `x` (binary) where the stub offers it (binary-upload), else
`m` (hex); writes with `X` (binary), else `M`; each in chunks the packet size allows."""

from __future__ import annotations

from aliceserver.debuggers.remote import packets
from aliceserver.debuggers.remote.client import RemoteClient, check
from aliceserver.debuggers.remote.errors import RemoteError, RemoteUnsupported
from aliceserver.errors import TargetError

_HEADROOM = 40  # the request's own letters and numbers, within the packet size
_PAGE = 4096
# Small reads at a stop are served from lines of this size read whole, kept until the
# program runs again (gdb's dcache): a step reads the code at the pc for one question and
# then the rest of the line for another, the unwinder the same stack words again. A line
# never crosses a page, so it is readable whole or not at all.
LINE = 256
_CACHED_AT_MOST = 4 * LINE  # bigger reads go straight to the stub (and fill the lines)
STACK_LINES = 4  # at most this many lines from the stack pointer's, asked with a stop


class RemoteMemory:
    def __init__(self, client: RemoteClient) -> None:
        self.client = client
        self.binary_reads = client.supports("binary-upload")
        self.binary_writes = True  # until the stub answers `X` with an empty reply
        self.packets = 0  # requests sent: for tests and the benchmark
        self._lines: dict[int, bytes] = {}  # line address -> its bytes (short: unreadable after)
        self._generation = 0  # a resume or a write makes a prefetch's late answer stale
        # The stack pointer's line at this stop (prefetch_stack) and the lines read since:
        # how many lines up the stack the next stop's prefetch asks for
        self._stack_line: int | None = None
        self._used: set[int] = set()
        self.stack_lines = 1

    def forget(self) -> None:
        """The program ran: what it holds may have changed."""
        self._lines.clear()
        self._generation += 1
        if self._stack_line is not None:  # the frames read this far up the stack: likely again
            lines = 1
            while lines < STACK_LINES and self._stack_line + lines * LINE in self._used:
                lines += 1
            self.stack_lines, self._stack_line = lines, None
        self._used.clear()

    def prefetch(self, address: int, lines: int = 1) -> None:
        """The line holding `address` (a stop's stack pointer) and `lines` - 1 after it asked
        at once, answered while the stop is handed on: a reported stop's frame reads them."""
        line = address - address % LINE
        lines = max(1, min(lines, self._read_chunk() // LINE, (_PAGE - line % _PAGE) // LINE))
        if line in self._lines or LINE > self._read_chunk():
            return
        generation = self._generation

        def answered(reply: bytes) -> None:
            if generation != self._generation or _is_error(reply) or not reply:
                return
            data = packets.unescape(reply[1:]) if self.binary_reads else packets.from_hex(reply)
            for n in range(len(data) // LINE):
                self._lines.setdefault(line + n * LINE, data[n * LINE : (n + 1) * LINE])

        verb = b"x" if self.binary_reads else b"m"
        self.client.connection.post(verb + b"%x,%x" % (line, lines * LINE), answered)

    def prefetch_stack(self, sp: int, lines: int) -> None:
        """The stack pointer's line and the ones above it the last stop read (up to `lines`)."""
        self._stack_line = sp - sp % LINE
        self.prefetch(sp, min(lines, self.stack_lines))

    def read(self, address: int, size: int) -> bytes:
        """`size` bytes at `address`; TargetError (gdb's words) where none can be read, the
        bytes up to the first unreadable one where some can."""
        if 0 < size <= _CACHED_AT_MOST:
            data = self._read_lines(address, size)
        else:
            data = self._read_direct(address, size)
            for line in range(-(-address // LINE) * LINE, address + len(data) - LINE + 1, LINE):
                self._lines[line] = data[line - address : line - address + LINE]
        if not data and size:
            raise TargetError(f"Cannot access memory at address {address:#x}")
        return data

    def _read_lines(self, address: int, size: int) -> bytes:
        out = bytearray()
        end = address + size
        line = address - address % LINE
        while line < end:
            self._used.add(line)
            data = self._lines.get(line)
            if data is None:
                self.client.connection.settle()  # a prefetched line may be on its way
                data = self._lines.get(line)
            if data is None:
                data = self._fill_lines(line, end)
            out += data[max(address - line, 0) : end - line]
            if len(data) < LINE:
                break
            line += LINE
        return bytes(out)

    def _fill_lines(self, line: int, end: int) -> bytes:
        """Line `line` and the missing ones after it up to `end`, in one request (a string
        crossing a line: one round trip, not two); the first one's bytes."""
        count = 1
        while line + count * LINE < end and line + count * LINE not in self._lines:
            count += 1
        count = max(1, min(count, self._read_chunk() // LINE))
        data = self._read_direct(line, count * LINE)
        for n in range(count):
            part = data[n * LINE : (n + 1) * LINE]
            self._lines[line + n * LINE] = part
            if len(part) < LINE:
                break  # short: unreadable after, as one line's read tells
        return data[:LINE]

    def _read_direct(self, address: int, size: int) -> bytes:
        """The bytes up to the first unreadable one (none: b"")."""
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
        return bytes(out)

    def write(self, address: int, data: bytes) -> None:
        self.forget()  # rare at a stop: no need to find the lines it touches
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
