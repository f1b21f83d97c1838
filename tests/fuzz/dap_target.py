"""DAP fuzz targets: hostile byte streams against the adapter, checked case by case.

`InProcessDap`: the real session code and framing over a socket pair, with the scripted
FakeDebugger behind it; a fresh session per case (every command allowed, cases are
independent, so failures shrink well). `LiveDap`: `python -m aliceserver --adapter dap
--port N` with the ptrace engine, one connection held across cases on a program stopped at
a breakpoint (reconnecting when it has ended); at the end a well-formed session on the
same server must still work.

For every case: each intact frame before the first framing break gets one response, in
order, to its own seq; no response is an internal error (id 9000: an exception escaped a
handler); a well-formed request sent after the case is answered; every message the adapter
sends is valid DAP (schema, seq); the adapter process stays alive.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from aliceserver.adapters.dap import DapServerConfig, build_dap_server
from aliceserver.adapters.dap.messages import ErrorId
from aliceserver.adapters.dap.registry import default_registry
from aliceserver.transports.framed import FramedTransport
from aliceserver.transports.tcp import SocketTransport
from tests.fuzz.dap_cases import SOURCE, THREAD, Case, Owed, cases
from tests.fuzz.wire import Message, RawWire
from tests.support.adapter_process import AdapterProcess, alice_argv, free_port
from tests.support.build import Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_schema import DapSchema
from tests.support.dap_session import start_session
from tests.support.fake_debugger import FakeDebugger
from tests.support.fake_program import FakeProgram

ALL_COMMANDS = tuple(default_registry().commands())
# Live: no command that starts a program chosen by the input, attaches to a pid from it,
# or ends the session (a fresh connection is cheap to make, but not a program to trust).
LIVE_EXCLUDED = {"launch", "attach", "restart", "disconnect"}
LIVE_COMMANDS = tuple(c for c in ALL_COMMANDS if c not in LIVE_EXCLUDED)
INPROC_COMMANDS = tuple(c for c in ALL_COMMANDS if c != "disconnect")
PADDING = b" " * 4100 + b"\r\n\r\n"  # ends any body a broken length left open (< 2100 owed)


class FuzzFailure(AssertionError):
    pass


def _error_id(message: Message) -> int | None:
    body = message.get("body")
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        ident = body["error"].get("id")
        return ident if isinstance(ident, int) else None
    return None


def play(
    wire: RawWire,
    case: Case,
    sync_seqs: Iterator[int],
    stats: Counter[str] | None = None,
    values: Mapping[str, str] | None = None,
    patience: float = 20.0,
) -> None:
    """Send `case`, then make sure the adapter answers a well-formed request; check the
    responses the case was owed. Raises FuzzFailure. `stats` counts replies by outcome."""
    start = wire.mark()
    for chunk in case.writes(values):
        wire.send(chunk)
    broken = any(p.owed is Owed.BREAKS for p in case.pieces)
    answer: Message | None = None
    for attempt in range(4):
        if broken:
            wire.send(PADDING)
        seq = next(sync_seqs)
        wire.request(seq, "threads")
        answer = wire.wait(
            lambda m, s=seq: m.get("type") == "response" and m.get("request_seq") == s  # type: ignore[misc]
            and m.get("success") is True,
            patience if not broken or attempt == 3 else 5.0,
            start,
        )
        if answer is not None or wire.closed or not broken:
            break
    if answer is None:
        why = "closed the connection" if wire.closed else "did not answer"
        raise FuzzFailure(f"the adapter {why} after the case: a well-formed `threads` went unanswered")
    end = wire.messages.index(answer, start)
    responses = [m for m in wire.messages[start:end] if m.get("type") == "response"]
    owed = case.owed_before_break()
    if len(responses) < len(owed) or (not broken and len(responses) != len(owed)):
        raise FuzzFailure(f"{len(owed)} responses owed, {len(responses)} sent: {responses!r}"[:2000])
    for piece, response in zip(owed, responses, strict=False):
        if piece.owed is Owed.RESPONSE and (
            response.get("request_seq") != piece.seq or response.get("command") != piece.command
        ):
            raise FuzzFailure(f"response {response!r} does not answer {piece!r}"[:2000])
    if stats is not None:
        for response in responses:
            ident = _error_id(response)
            label = "ok" if response.get("success") else ErrorId(ident).name if ident in set(ErrorId) else str(ident)
            command = response.get("command")
            stats[f"{command if command in ALL_COMMANDS else '<other>'}:{label}"] += 1
    internal = [r for r in responses if _error_id(r) == ErrorId.INTERNAL]
    if internal:
        raise FuzzFailure(f"internal error: {internal[0].get('message')}"[:2000])
    if wire.problems:
        problems, wire.problems[:] = list(wire.problems), []
        raise FuzzFailure("invalid messages from the adapter:\n" + "\n".join(problems[:5]))


class InProcessDap:
    """The session over a socket pair with a FakeDebugger; a fresh session per case."""

    name = "dap_inproc"

    def __init__(self, schema: DapSchema | None) -> None:
        self.schema = schema
        self.server = build_dap_server(DapServerConfig(debugger_factory=FakeDebugger))
        self._sync = itertools.count(500_000_000)
        self.stats: Counter[str] = Counter()

    def strategy(self) -> st.SearchStrategy[Any]:
        return self.strategy_static()

    @staticmethod
    def strategy_static() -> st.SearchStrategy[tuple[str, Case]]:
        return st.tuples(st.sampled_from(["fresh", "initialized", "stopped"]), cases(INPROC_COMMANDS))

    def check(self, drawn: tuple[str, Case]) -> None:
        prepared, case = drawn
        ours, theirs = socket.socketpair()
        transport = SocketTransport(theirs, FramedTransport)  # closing it ends our reads
        thread = threading.Thread(target=self.server.serve, args=(transport,), daemon=True)
        thread.start()

        def close() -> None:
            try:
                ours.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            ours.close()

        wire = RawWire(ours.recv, ours.sendall, close, self.schema)
        try:
            thread_id = FakeProgram.default().pid
            if prepared != "fresh":
                thread_id = _prepare(wire, prepared == "stopped")
            values = {THREAD: str(thread_id), SOURCE: '"/fake/prog.c"'}
            play(wire, case, self._sync, self.stats, values)
            wire.request(next(self._sync), "disconnect", {"terminateDebuggee": True})
        finally:
            wire.close()
            theirs.close()
            thread.join(timeout=10)
        if thread.is_alive():
            raise FuzzFailure("the session did not end when its client went away")

    def finish(self) -> None:
        pass

    def close(self) -> None:
        pass


def _prepare(wire: RawWire, stopped: bool) -> int:
    """initialize, and for `stopped` launch (stopOnEntry) and configurationDone: the
    scripted program waits at its entry."""
    seqs = itertools.count(900_000_000)
    wanted = [_send(wire, seqs, "initialize", {"adapterID": "alice", "clientID": "fuzz"})]
    since = wire.mark()
    if stopped:
        wanted.append(_send(wire, seqs, "launch", {"program": "/fake/prog", "stopOnEntry": True}))
        wanted.append(_send(wire, seqs, "configurationDone"))
    _answered(wire, wanted)
    if not stopped:
        return FakeProgram.default().pid
    stop = wire.wait(lambda m: m.get("event") == "stopped", 30.0, since)
    if stop is None:
        raise FuzzFailure("could not prepare a stopped session")
    return int(stop["body"]["threadId"])


def _send(wire: RawWire, seqs: Iterator[int], command: str, arguments: Any = None) -> int:
    seq = next(seqs)
    wire.request(seq, command, arguments)
    return seq


def _answered(wire: RawWire, seqs: Sequence[int]) -> None:
    for seq in seqs:
        answer = wire.response_to(seq, 30.0)
        if answer is None or not answer.get("success"):
            raise FuzzFailure(f"a well-formed setup request failed: {answer!r} {wire.problems!r}")


class LiveDap:
    """A TCP adapter process with the ptrace engine; a program stopped in `leaf`."""

    name = "dap"

    def __init__(self, schema: DapSchema | None, builder: Builder, workdir: Path) -> None:
        self.schema = schema
        self.builder = builder
        self.program = builder.build("src_basic")
        self.source = builder.source("src_basic")
        # The program's source beside it, so the breakpoint path is the one in its DWARF.
        self.line = marker_line(self.source, "leaf")
        self.port = free_port()
        self.log = workdir / "fuzz-adapter.log"
        # in the test's directory: a generated console line may be a `gcore` (gc, gcor...),
        # whose core.PID goes to the server's working directory
        self.adapter = AdapterProcess.start(
            alice_argv("--port", str(self.port)), cwd=workdir, stdio=False, stderr=self.log
        )
        self._sync = itertools.count(500_000_000)
        self._wire: RawWire | None = None
        self._connections = 0
        self._values: dict[str, str] = {}
        self.stats: Counter[str] = Counter()

    @property
    def connections(self) -> int:
        return self._connections

    def strategy(self) -> st.SearchStrategy[Any]:
        return self.strategy_static()

    @staticmethod
    def strategy_static() -> st.SearchStrategy[Case]:
        return cases(LIVE_COMMANDS)

    def _connect(self) -> RawWire:
        if self._wire is not None:
            ended = self._wire.closed or any(
                m.get("event") in ("exited", "terminated") for m in self._wire.messages
            )
            if not ended:
                return self._wire
            self._wire.close()
            self._wire = None
        wire = _connect_retry(self.port, self.schema, self.adapter)
        self._connections += 1
        thread_id = _prepare_live(wire, self.program, str(self.source), self.line)
        self._values = {THREAD: str(thread_id), SOURCE: json.dumps(str(self.source))}
        self._wire = wire
        return wire

    def check(self, case: Case) -> None:
        self._alive()
        wire = self._connect()
        try:
            play(wire, case, self._sync, self.stats, self._values)
        finally:
            self._alive()

    def _alive(self) -> None:
        code = self.adapter.popen.poll()
        if code is not None:
            raise FuzzFailure(f"the adapter died (exit {code}): {self.adapter.stderr_text(3000)}")

    def finish(self) -> None:
        """A well-formed session on the same server still works from start to end."""
        self._alive()
        if self._wire is not None:
            self._wire.close()
            self._wire = None
        client = DapClient.connect("127.0.0.1", self.port, validate=self.schema is not None)
        try:
            session = start_session(client, self.program, breakpoints={str(self.source): [self.line]})
            thread = session.thread_id
            frame = client.stack_trace(thread, 0, 1)[0]
            if frame["name"] != "leaf":
                raise FuzzFailure(f"after fuzzing: stopped in {frame['name']}, not leaf")
            value = client.call("evaluate", {"expression": "x", "frameId": frame["id"], "context": "watch"})
            if value["result"] != "3":
                raise FuzzFailure(f"after fuzzing: x is {value['result']}")
            client.call("setBreakpoints", {"source": {"path": str(self.source)}, "breakpoints": []})
            end = client.continue_(thread)
            if end["event"] != "exited" or end["body"]["exitCode"] != 0:
                raise FuzzFailure(f"after fuzzing: the program ended with {end!r}")
            client.disconnect()
            client.assert_valid()
        finally:
            client.close()
        self._alive()

    def close(self) -> None:
        if self._wire is not None:
            self._wire.close()
            self._wire = None
        self.adapter.kill()


def _connect_retry(port: int, schema: DapSchema | None, adapter: AdapterProcess) -> RawWire:
    import time

    deadline = time.monotonic() + 20
    while True:
        try:
            return RawWire.connect(port, schema)
        except OSError:
            if adapter.popen.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _prepare_live(wire: RawWire, program: Path, source: str, line: int) -> int:
    seqs = itertools.count(900_000_000)
    wanted = [_send(wire, seqs, "initialize", {"adapterID": "alice", "clientID": "fuzz"})]
    since = wire.mark()
    wanted.append(_send(wire, seqs, "launch", {"program": str(program), "cwd": str(program.parent)}))
    wanted.append(_send(wire, seqs, "setBreakpoints",
                        {"source": {"path": source}, "breakpoints": [{"line": line}]}))  # fmt: skip
    wanted.append(_send(wire, seqs, "configurationDone"))
    _answered(wire, wanted)
    stop = wire.wait(lambda m: m.get("event") in ("stopped", "terminated"), 30.0, since)
    if stop is None or stop.get("event") != "stopped":
        raise FuzzFailure(f"could not start a session to fuzz: {stop!r} {wire.problems!r}")
    return int(stop["body"]["threadId"])


def live_commands() -> Sequence[str]:
    return LIVE_COMMANDS
