"""Drive `python -m aliceserver -i=mi ...` (or real gdb) as a subprocess, line by line.

Every line the server prints is kept in `lines`; `check()` runs the strict MI grammar over
them (tests/support/mi_grammar.py). Waits have generous limits and nothing asserts timings.
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable, Iterator, Sequence

from tests.support.mi_grammar import PROMPT, List, Record, Tuple, check_transcript, parse_record

ROOT = Path(__file__).resolve().parent.parent.parent
PATIENCE = 60.0


class MiClient:
    def __init__(self, args: Sequence[str], *, cwd: Path | str | None = None, gdb: bool = False,
                 env: dict[str, str] | None = None, gdb_program: str = "gdb") -> None:
        """`gdb`: run `gdb_program` (gdb-multiarch...) with `args`, else us."""
        command = [gdb_program, *args] if gdb else [sys.executable, "-m", "aliceserver", *args]
        environment = dict(os.environ if env is None else env)
        environment["PYTHONPATH"] = str(ROOT) + os.pathsep + environment.get("PYTHONPATH", "")
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=cwd, env=environment,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self.stderr = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._token = 100

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "surrogateescape").rstrip("\n")
            self.lines.append(line)
            self._queue.put(line)
        self._queue.put(None)

    def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text.encode("utf-8", "surrogateescape") + b"\n")
        self.process.stdin.flush()

    def next_line(self) -> str:
        try:
            line = self._queue.get(timeout=PATIENCE)
        except queue.Empty:
            raise AssertionError("no output from the server; so far:\n" + "\n".join(self.lines[-30:])) from None
        if line is None:
            raise AssertionError("the server ended; so far:\n" + "\n".join(self.lines[-30:]))
        return line

    def read_until(self, done: Callable[[str], bool]) -> list[str]:
        seen = []
        while True:
            line = self.next_line()
            seen.append(line)
            if done(line):
                return seen

    def prompt(self) -> list[str]:
        return self.read_until(lambda line: line == PROMPT)

    def command(self, text: str, *, token: bool = True) -> tuple[Record, list[str]]:
        """Send a command; wait for its result record and the prompt after it."""
        prefix = ""
        if token and text.startswith("-"):
            self._token += 1
            prefix = str(self._token)
        self.send(prefix + text)
        if not prefix:
            prefix = text[: len(text) - len(text.lstrip("0123456789"))]
        seen: list[str] = []
        result: Record | None = None
        while True:
            line = self.next_line()
            seen.append(line)
            if line.startswith(prefix + "^") and (prefix or line.startswith("^")):
                result = parse_record(line)
                if result.cls == "exit":
                    return result, seen
            elif line == PROMPT and result is not None:
                return result, seen

    def ok(self, text: str, **kwargs: bool) -> Record:
        result, seen = self.command(text, **kwargs)
        assert result.cls in ("done", "running"), f"{text}: {seen}"
        return result

    def error(self, text: str, **kwargs: bool) -> str:
        result, seen = self.command(text, **kwargs)
        assert result.cls == "error", f"{text}: {seen}"
        message = result.results["msg"]
        assert isinstance(message, str)
        return message

    def stopped(self) -> Record:
        """The next *stopped record (after any other output)."""
        lines = self.read_until(lambda line: line.startswith("*stopped"))
        return parse_record(lines[-1])

    def check(self, program_output: Sequence[str] = ()) -> None:
        errors = check_transcript(self.lines, program_output)
        assert not errors, "\n".join(errors)

    def close(self) -> int:
        if self.process.poll() is None:
            try:
                self.send("-gdb-exit")
            except (BrokenPipeError, OSError):
                pass
            try:
                self.process.wait(timeout=PATIENCE)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=PATIENCE)
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return self.process.returncode


@contextlib.contextmanager
def mi_stopped_at(program: Path, location: str, cwd: Path, *, gdb: bool) -> Iterator[MiClient]:
    """`-i=mi -q -nx PROGRAM` under gdb or under us, run to its first stop at `location`
    (the same start on both sides of a comparison); closed at the end."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok(f"-break-insert {location}")
        mi.ok("-exec-run")
        mi.stopped()
        yield mi
    finally:
        mi.close()


def thread_info_frames(mi: MiClient) -> list[tuple[Tuple, Tuple, list[str]]]:
    """-thread-info's threads: each one's record, its frame, and the frame's arguments as
    NAME=VALUE."""
    threads = mi.ok("-thread-info").results["threads"]
    assert isinstance(threads, List)
    frames = []
    for thread in threads.values:
        assert isinstance(thread, Tuple)
        frame = thread["frame"]
        assert isinstance(frame, Tuple)
        args = frame["args"]
        assert isinstance(args, List)
        frames.append((thread, frame, [f"{a['name']}={a['value']}" for a in args.values if isinstance(a, Tuple)]))
    return frames
