"""A UI gathers what one command writes and sends it in one write (the client wakes once)."""

from __future__ import annotations

from aliceserver.adapters.mi.ui import Ui


class Recorder:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def read_message(self) -> bytes | None:
        return None

    def write_message(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        pass


def test_held_records_go_out_in_one_write_in_order() -> None:
    wire = Recorder()
    ui = Ui(wire, mi=True)
    ui.hold()
    ui.result("7", "done", [("value", "1")])
    ui.prompt()
    assert wire.writes == []
    ui.release()
    assert wire.writes == [b'7^done,value="1"\n(gdb) \n']


def test_nested_holds_write_at_the_outer_release_and_flush_writes_early() -> None:
    wire = Recorder()
    ui = Ui(wire, mi=True)
    ui.hold()
    ui.hold()
    ui.line("*running,thread-id=\"all\"")
    ui.release()
    assert wire.writes == []
    ui.flush()  # the session flushes before it waits for the program
    assert wire.writes == [b'*running,thread-id="all"\n']
    ui.prompt()
    ui.release()
    assert wire.writes == [b'*running,thread-id="all"\n', b"(gdb) \n"]
    ui.prompt()  # not held: at once
    assert len(wire.writes) == 3
