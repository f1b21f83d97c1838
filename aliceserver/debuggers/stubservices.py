"""What a connected stub of gdb's remote protocol offers besides debugging (an optional
capability of an IDebugger, front-end neutral): its operating system's tables
(`qXfer:osdata`, gdb's `info os`) and its files (`vFile:`, gdb's `remote get/put/delete`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable


class StubServices(Protocol):
    def osdata(self, kind: str) -> bytes | None:
        """The stub's `<osdata>` XML for `kind` ("": the list of kinds); b"": it has none of
        that kind; None: it offers no osdata."""
        ...

    def read_file(self, path: str, opened: Callable[[], None], write: Callable[[bytes], None]) -> None:
        """The file at `path` on the stub's machine: once it is open there `opened()` is
        called (where gdb makes the local file), then `write` with its bytes in order
        (TargetError in gdb's words; what the callables raise goes through)."""
        ...

    def write_file(self, path: str, read: Callable[[int], bytes]) -> None:
        """Create or truncate `path` there (mode 0700, as gdb), then write what `read(N)`
        gives (at most N bytes; nothing at the end)."""
        ...

    def delete_file(self, path: str) -> None: ...


@runtime_checkable
class HasStubServices(Protocol):
    def stub_services(self) -> StubServices | None:
        """The connected stub's services (None: no stub is connected)."""
        ...


def stub_services(debugger: object) -> StubServices | None:
    return debugger.stub_services() if isinstance(debugger, HasStubServices) else None
