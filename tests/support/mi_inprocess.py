"""An MI session inside the test process over memory transports, with any IDebugger."""

from __future__ import annotations

import queue
import threading
from typing import Callable

from aliceserver.adapters.mi.main import serve
from aliceserver.adapters.mi.session import SessionConfig
from aliceserver.debuggers.base import IDebugger
from aliceserver.transports.memory import memory_pair
from tests.support.mi_grammar import PROMPT, Record, check_transcript, parse_record

PATIENCE = 30.0


class InProcessMi:
    def __init__(self, factory: Callable[[], IDebugger], config: SessionConfig) -> None:
        self.client, server = memory_pair()
        self.lines: list[str] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._partial = ""
        self.exit_code: int | None = None
        self._server = threading.Thread(
            target=self._serve, args=(config, server, factory), daemon=True
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._server.start()
        self._reader.start()

    def _serve(self, config: SessionConfig, server: object, factory: Callable[[], IDebugger]) -> None:
        try:
            self.exit_code = serve(config, server, factory, install_signals=False)  # type: ignore[arg-type]
        finally:
            server.close()  # type: ignore[attr-defined]

    def _read(self) -> None:
        while True:
            data = self.client.read_message()
            if data is None:
                self._lines.put(None)
                return
            text = self._partial + data.decode("utf-8", "surrogateescape")
            *complete, self._partial = text.split("\n")
            for line in complete:
                self.lines.append(line)
                self._lines.put(line)

    def send(self, line: str) -> None:
        self.client.write_message(line.encode("utf-8", "surrogateescape"))

    def next_line(self) -> str:
        line = self._lines.get(timeout=PATIENCE)
        assert line is not None, "the session ended: " + "\n".join(self.lines[-20:])
        return line

    def until(self, done: Callable[[str], bool]) -> list[str]:
        seen = []
        while True:
            seen.append(self.next_line())
            if done(seen[-1]):
                return seen

    def prompt(self) -> list[str]:
        return self.until(lambda line: line == PROMPT)

    def command(self, text: str) -> tuple[Record, list[str]]:
        self.send(text)
        token = text[: len(text) - len(text.lstrip("0123456789"))]
        seen = self.until(lambda line: line.startswith(token + "^"))
        result = parse_record(seen[-1])
        if result.cls != "exit":
            seen += self.prompt()
        return result, seen

    def stopped(self) -> Record:
        return parse_record(self.until(lambda line: line.startswith("*stopped"))[-1])

    def close(self) -> None:
        if self._server.is_alive():
            self.send("-gdb-exit")
            self._server.join(PATIENCE)
        self.client.close()

    def errors(self, program_output: tuple[str, ...] = ()) -> list[str]:
        return check_transcript(self.lines, program_output)
