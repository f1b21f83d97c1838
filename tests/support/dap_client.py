"""A small typed Debug Adapter Protocol client for tests, conformance runs and benchmarks.

    with DapClient.spawn(alice_argv()) as client:       # or DapClient.spawn_tcp(...)
        session = start_session(client, program, breakpoints={source: [line]})
        frame = client.stack_trace(session.thread_id)[0]
        client.continue_(session.thread_id)
        client.wait_event("exited")

(alice_argv and the adapter processes: adapter_process.py; start_session and the
context managers that always close: dap_session.py.)

One reader thread parses the `Content-Length` framed stream; responses are matched to
requests by `request_seq`, events are kept in order (`events`) and `wait_event` hands each
one out once. Reverse requests from the adapter (`runInTerminal`) are answered when a
handler is configured, else refused with `success: false`. With a schema (the default for
our own adapter), every received message is validated and the violations are recorded
(`violations`, `assert_valid()`), together with sequence-number errors. `close()` ends the
session, kills the adapter and everything it started, and reaps it: tests check that no
process is left behind.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from tests.support.adapter_process import AdapterProcess
from tests.support.dap_schema import DapSchema, Violation, shared_schema

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 30.0
Message = dict[str, Any]
ReverseHandler = Callable[[Mapping[str, Any]], Mapping[str, Any]]


class DapError(RuntimeError):
    """The session failed: timeout, closed connection, refused request."""


class DapTimeout(DapError):
    pass


class DapClosed(DapError):
    pass


class RequestFailed(DapError):
    """A response with `success: false` where success was required."""

    def __init__(self, response: Message) -> None:
        self.response = response
        super().__init__(
            f"{response.get('command')} failed: {response.get('message')!r} "
            f"{json.dumps(response.get('body'))[:300]}"
        )


@dataclass(frozen=True)
class Received:
    """One message of the transcript, in order."""

    at: float  # time.monotonic()
    direction: str  # "recv" (adapter -> us) or "send"
    message: Message


@dataclass(frozen=True)
class SeqError:
    message: Message
    text: str

    def __str__(self) -> str:
        return f"{self.text}: {json.dumps(self.message)[:300]}"


@dataclass
class _Pending:
    command: str
    done: threading.Event = field(default_factory=threading.Event)
    response: Message | None = None


class DapClient:
    """One DAP session over a pair of byte streams (an adapter's stdio, or a socket)."""

    def __init__(
        self,
        reader: IO[bytes],
        writer: IO[bytes],
        *,
        adapter: AdapterProcess | None = None,
        sock: socket.socket | None = None,
        schema: DapSchema | None = None,
        strict_seq: bool = True,
        reverse_handlers: Mapping[str, ReverseHandler] | None = None,
        name: str = "adapter",
    ) -> None:
        self.name = name
        self.adapter = adapter
        self.schema = schema
        # lldb-vscode-16 sends seq 0 on every message; clients tolerate it, we only note it.
        self.strict_seq = strict_seq
        self.reverse_handlers: dict[str, ReverseHandler] = dict(reverse_handlers or {})
        self.transcript: list[Received] = []
        self.violations: list[tuple[Message, Violation]] = []
        self.seq_errors: list[SeqError] = []
        self.terminal_processes: list[subprocess.Popen[bytes]] = []
        self._reader = reader
        self._writer = writer
        self._sock = sock
        self._seq = itertools.count(1)
        self._write_lock = threading.Lock()
        self._cond = threading.Condition()
        self._pending: dict[int, _Pending] = {}
        self._events: list[Message] = []
        self._handed_out: set[int] = set()  # indices of events wait_event already returned
        self._last_seq: int | None = None
        self._closed = False
        self._eof_reason = ""
        self._thread = threading.Thread(target=self._read_loop, name=f"dap-{name}", daemon=True)
        self._thread.start()

    # --- construction -----------------------------------------------------------------

    @classmethod
    def spawn(
        cls,
        argv: Sequence[str],
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        validate: bool = False,
        strict_seq: bool = True,
        reverse_handlers: Mapping[str, ReverseHandler] | None = None,
        stderr: Path | None = None,
        name: str | None = None,
    ) -> DapClient:
        """Start `argv` and speak DAP over its stdin/stdout."""
        adapter = AdapterProcess.start(argv, cwd=cwd, env=env, stderr=stderr)
        assert adapter.popen.stdout is not None and adapter.popen.stdin is not None
        return cls(
            adapter.popen.stdout,
            adapter.popen.stdin,
            adapter=adapter,
            schema=shared_schema() if validate else None,
            strict_seq=strict_seq,
            reverse_handlers=reverse_handlers,
            name=name or Path(argv[0]).name,
        )

    @classmethod
    def connect(
        cls,
        host: str,
        port: int,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        adapter: AdapterProcess | None = None,
        validate: bool = False,
        strict_seq: bool = True,
        reverse_handlers: Mapping[str, ReverseHandler] | None = None,
        name: str | None = None,
    ) -> DapClient:
        """Connect to an adapter listening on host:port (retrying while it starts up)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                sock = socket.create_connection((host, port), timeout=2.0)
                break
            except OSError as error:
                if adapter is not None and adapter.popen.poll() is not None:
                    raise DapClosed(
                        f"the adapter exited ({adapter.popen.returncode}) before accepting:\n"
                        f"{adapter.stderr_text()}"
                    ) from error
                if time.monotonic() >= deadline:
                    if adapter is not None:
                        adapter.kill()
                    raise DapTimeout(f"nothing accepted on {host}:{port}: {error}") from error
                time.sleep(0.05)
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(
            sock.makefile("rb"),
            sock.makefile("wb"),
            adapter=adapter,
            sock=sock,
            schema=shared_schema() if validate else None,
            strict_seq=strict_seq,
            reverse_handlers=reverse_handlers,
            name=name or f"{host}:{port}",
        )

    @classmethod
    def spawn_tcp(
        cls,
        argv: Sequence[str],
        port: int,
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        validate: bool = False,
        strict_seq: bool = True,
        stderr: Path | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> DapClient:
        """Start `argv` (which must make the adapter listen on `port`) and connect to it."""
        adapter = AdapterProcess.start(argv, cwd=cwd, env=env, stdio=False, stderr=stderr)
        return cls.connect(
            "127.0.0.1",
            port,
            timeout=timeout,
            adapter=adapter,
            validate=validate,
            strict_seq=strict_seq,
            name=Path(argv[0]).name,
        )

    def __enter__(self) -> DapClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # --- sending ----------------------------------------------------------------------

    def _send(self, message: Message, expect_response: bool = False) -> int:
        with self._write_lock:
            seq = next(self._seq)
            message["seq"] = seq
            if expect_response:
                # Registered before sending: the response may arrive before write() returns.
                with self._cond:
                    self._pending[seq] = _Pending(str(message.get("command")))
            data = json.dumps(message, separators=(",", ":")).encode()
            self.transcript.append(Received(time.monotonic(), "send", message))
            try:
                self._writer.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
                self._writer.flush()
            except (ConnectionError, ValueError, OSError) as error:
                raise DapClosed(
                    f"{self.name}: cannot send {message.get('command')}: {error}"
                ) from error
        return seq

    def send_request(self, command: str, arguments: Mapping[str, Any] | None = None) -> int:
        """Send a request without waiting; the response comes from `response(seq)`."""
        message: Message = {"type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = dict(arguments)
        return self._send(message, expect_response=True)

    def response(self, seq: int, timeout: float = DEFAULT_TIMEOUT) -> Message:
        """The response to request `seq` (raises DapTimeout / DapClosed)."""
        with self._cond:
            pending = self._pending[seq]
            ok = self._cond.wait_for(lambda: pending.done.is_set() or self._closed, timeout)
            if pending.response is not None:
                del self._pending[seq]
                return pending.response
        if not ok:
            raise DapTimeout(
                f"{self.name}: no response to {pending.command} in {timeout}s{self._tail()}"
            )
        raise DapClosed(
            f"{self.name}: closed before answering {pending.command}: {self._eof_reason}"
        )

    def request(
        self,
        command: str,
        arguments: Mapping[str, Any] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Message:
        """Send a request and return its response, successful or not."""
        return self.response(self.send_request(command, arguments), timeout)

    def call(
        self,
        command: str,
        arguments: Mapping[str, Any] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> dict[str, Any]:
        """A request that must succeed: its body ({} when it has none)."""
        answer = self.request(command, arguments, timeout)
        if not answer.get("success"):
            raise RequestFailed(answer)
        body = answer.get("body")
        return dict(body) if isinstance(body, dict) else {}

    # --- events -----------------------------------------------------------------------

    @property
    def events(self) -> list[Message]:
        """Every event received so far, in order."""
        with self._cond:
            return list(self._events)

    def mark(self) -> int:
        """A position in `events`: pass it as `since` to ignore what came before."""
        with self._cond:
            return len(self._events)

    def wait_event(
        self,
        event: str,
        predicate: Callable[[Message], bool] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        since: int = 0,
    ) -> Message:
        """The first matching event (from index `since`) not yet returned by wait_event."""

        def find() -> Message | None:
            for index in range(since, len(self._events)):
                message = self._events[index]
                if index in self._handed_out or message.get("event") != event:
                    continue
                if predicate is None or predicate(message):
                    self._handed_out.add(index)
                    return message
            return None

        found: Message | None = None

        def ready() -> bool:
            nonlocal found
            found = find()
            return found is not None or self._closed

        with self._cond:
            self._cond.wait_for(ready, timeout)
        if found is not None:
            return found
        if self._closed:
            raise DapClosed(f"{self.name}: closed while waiting for {event}: {self._eof_reason}")
        raise DapTimeout(f"{self.name}: no {event} event in {timeout}s{self._tail()}")

    def _tail(self, count: int = 8) -> str:
        lines = [f"  {r.direction} {json.dumps(r.message)[:240]}" for r in self.transcript[-count:]]
        stderr = self.adapter.stderr_text(1500) if self.adapter is not None else ""
        text = "\nlast messages:\n" + "\n".join(lines)
        return text + (f"\nadapter stderr:\n{stderr}" if stderr else "")

    # --- receiving --------------------------------------------------------------------

    def _read_message(self) -> Message | None:
        length = -1
        while True:
            line = self._reader.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if length >= 0:
                    break
                continue
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        body = b""
        while len(body) < length:
            chunk = self._reader.read(length - len(body))
            if not chunk:
                return None
            body += chunk
        decoded: Message = json.loads(body.decode("utf-8"))
        return decoded

    def _read_loop(self) -> None:
        reason = "end of stream"
        try:
            while True:
                message = self._read_message()
                if message is None:
                    break
                self.transcript.append(Received(time.monotonic(), "recv", message))
                self._check(message)
                kind = message.get("type")
                if kind == "response":
                    self._on_response(message)
                elif kind == "event":
                    with self._cond:
                        self._events.append(message)
                        self._cond.notify_all()
                elif kind == "request":
                    # Answered aside: a write may block, and this thread must keep reading.
                    threading.Thread(
                        target=self._on_reverse_request, args=(message,), daemon=True
                    ).start()
        except Exception as error:  # noqa: BLE001 - recorded, surfaces in waiters' errors
            reason = f"reader failed: {type(error).__name__}: {error}"
            log.exception("%s: DAP reader failed", self.name)
        with self._cond:
            self._closed = True
            self._eof_reason = reason
            self._cond.notify_all()

    def _on_response(self, message: Message) -> None:
        with self._cond:
            pending = self._pending.get(message.get("request_seq", -1))
            if pending is None or pending.done.is_set():
                self.seq_errors.append(SeqError(message, "response to no pending request"))
            else:
                if message.get("command") != pending.command:
                    self.seq_errors.append(
                        SeqError(message, f"response command is not {pending.command!r}")
                    )
                pending.response = message
                pending.done.set()
            self._cond.notify_all()

    def _on_reverse_request(self, message: Message) -> None:
        command = str(message.get("command"))
        handler = self.reverse_handlers.get(command)
        answer: Message = {
            "type": "response",
            "request_seq": message.get("seq"),
            "command": command,
        }
        if handler is None:
            answer.update(success=False, message=f"the test client does not handle {command}")
        else:
            try:
                answer.update(success=True, body=dict(handler(message.get("arguments") or {})))
            except Exception as error:  # noqa: BLE001 - answered as a failure, like a client
                answer.update(success=False, message=f"{type(error).__name__}: {error}")
        with contextlib.suppress(DapClosed):
            self._send(answer)

    def _check(self, message: Message) -> None:
        seq = message.get("seq")
        if self.strict_seq and isinstance(seq, int):
            expected = 1 if self._last_seq is None else self._last_seq + 1
            if seq != expected:
                self.seq_errors.append(SeqError(message, f"seq {seq}, expected {expected}"))
            self._last_seq = seq
        if self.schema is not None:
            checked = message
            if not self.strict_seq and seq == 0:
                checked = dict(message, seq=1)
            for violation in self.schema.validate(checked):
                self.violations.append((message, violation))

    def problems(self) -> list[str]:
        """Schema violations and sequence errors seen so far, as text."""
        out = [f"{v}: {json.dumps(m)[:300]}" for m, v in self.violations]
        return out + [str(e) for e in self.seq_errors]

    def assert_valid(self) -> None:
        problems = self.problems()
        if problems:
            raise AssertionError(
                f"{self.name}: {len(problems)} protocol problems:\n" + "\n".join(problems[:20])
            )

    # --- common requests --------------------------------------------------------------

    def threads(self) -> list[dict[str, Any]]:
        return list(self.call("threads").get("threads", []))

    def stack_trace(
        self, thread_id: int, start: int = 0, levels: int | None = None
    ) -> list[dict[str, Any]]:
        arguments: dict[str, Any] = {"threadId": thread_id, "startFrame": start}
        if levels is not None:
            arguments["levels"] = levels
        return list(self.call("stackTrace", arguments).get("stackFrames", []))

    def scopes(self, frame_id: int) -> list[dict[str, Any]]:
        return list(self.call("scopes", {"frameId": frame_id}).get("scopes", []))

    def variables(self, reference: int, **extra: Any) -> list[dict[str, Any]]:
        body = self.call("variables", {"variablesReference": reference, **extra})
        return list(body.get("variables", []))

    def scope_variables(self, frame_id: int, name_prefix: str = "Local") -> dict[str, str]:
        """name -> value of the first scope whose name starts with `name_prefix`."""
        for scope in self.scopes(frame_id):
            if str(scope.get("name", "")).startswith(name_prefix):
                return {
                    str(v["name"]): str(v["value"])
                    for v in self.variables(int(scope["variablesReference"]))
                }
        return {}

    def resume(self, command: str, thread_id: int, timeout: float = DEFAULT_TIMEOUT) -> Message:
        """`continue` / `next` / `stepIn` / `stepOut`, then the stop or exit that follows."""
        since = self.mark()
        self.call(command, {"threadId": thread_id}, timeout)
        return self.wait_stop_or_exit(since, timeout)

    def continue_(self, thread_id: int, timeout: float = DEFAULT_TIMEOUT) -> Message:
        return self.resume("continue", thread_id, timeout)

    def wait_stop_or_exit(self, since: int = 0, timeout: float = DEFAULT_TIMEOUT) -> Message:
        """The next `stopped`, `exited` or `terminated` event after `since`."""
        deadline = time.monotonic() + timeout
        wanted = ("stopped", "exited", "terminated")
        while True:
            with self._cond:
                for index in range(since, len(self._events)):
                    message = self._events[index]
                    if index not in self._handed_out and message.get("event") in wanted:
                        self._handed_out.add(index)
                        return message
                left = deadline - time.monotonic()
                if self._closed:
                    raise DapClosed(f"{self.name}: closed while waiting for a stop")
                if left <= 0:
                    raise DapTimeout(f"{self.name}: no stop or exit in {timeout}s{self._tail()}")
                self._cond.wait(left)

    def disconnect(self, terminate: bool = True, timeout: float = 5.0) -> Message | None:
        """A polite `disconnect`; None when the adapter is already gone or silent."""
        try:
            return self.request(
                "disconnect", {"restart": False, "terminateDebuggee": terminate}, timeout
            )
        except DapError:
            return None

    # --- shutdown ---------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self, disconnect: bool = True) -> None:
        """Disconnect (if still connected), kill the adapter and what it started, reap all."""
        if disconnect and not self._closed:
            self.disconnect(timeout=2.0)
        # The order matters: a buffered reader cannot be closed while the reader thread is
        # blocked in it, so first end the stream (socket shutdown, adapter exit), join, close.
        with contextlib.suppress(OSError, ValueError):
            self._writer.close()
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
        if self.adapter is not None:
            self.adapter.stop(grace=2.0)
        for process in self.terminal_processes:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=5.0)
        self._thread.join(timeout=5.0)
        if not self._thread.is_alive():
            with contextlib.suppress(OSError, ValueError):
                self._reader.close()
        if self._sock is not None:
            self._sock.close()

    # --- reverse requests -------------------------------------------------------------

    def enable_run_in_terminal(self) -> None:
        """Answer runInTerminal by starting the command here (stdio to /dev/null)."""
        self.reverse_handlers["runInTerminal"] = self._run_in_terminal

    def _run_in_terminal(self, arguments: Mapping[str, Any]) -> Mapping[str, Any]:
        env = dict(os.environ)
        for key, value in dict(arguments.get("env") or {}).items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = str(value)
        process = subprocess.Popen(
            [str(a) for a in arguments["args"]],
            cwd=arguments.get("cwd") or None,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.terminal_processes.append(process)
        return {"processId": process.pid}
