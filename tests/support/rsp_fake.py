"""A stub in the test process: a Channel whose peer answers each packet from a function,
for unit tests of the remote backend's session, memory and registers."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.debuggers.remote import packets


class FakeStub:
    """A Channel whose peer answers each packet with `answer(body)` (a list: several
    packets), acknowledging it while acks are on."""

    def __init__(self, answer: Callable[[bytes], list[bytes]]) -> None:
        self.answer = answer
        self.requests: list[bytes] = []
        self.inbox = bytearray()
        self.acks = True
        self._decoder = packets.Decoder()

    def write(self, data: bytes) -> None:
        for item in self._decoder.feed(data):
            if isinstance(item, packets.Packet):
                self.requests.append(item.body)
                if self.acks:
                    self.inbox += b"+"
                for reply in self.answer(item.body):
                    self.inbox += packets.frame(packets.run_length_encode(reply))
                if item.body == b"QStartNoAckMode":
                    self.acks = False

    def read(self, timeout: float | None) -> bytes:
        data, self.inbox = bytes(self.inbox), bytearray()
        return data

    def close(self) -> None:
        pass
