"""The file behind a patch area's data region, open in the program and mapped in the server.

First choice: a memfd the program creates (memfd_create run in it), which the server
opens through /proc/PID/fd/N while the program still holds it. Where the program may not
create one (a seccomp filter, a kernel before 3.17) the server creates it and the program
opens it through /proc/SERVER/fd/N. Either way the caller maps the program's fd and closes
it; the server's mapping keeps the file alive on its side.
"""

from __future__ import annotations

import errno
import mmap
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final

from aliceserver.debuggers.ptrace.patches.inject import (
    SYS_CLOSE,
    SYS_FTRUNCATE,
    SYS_MEMFD_CREATE,
    SYS_OPENAT,
    SyscallInjector,
)
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior

MEMFD_NAME: Final = "aliceserver-patches"
_MFD_CLOEXEC: Final = 1
_AT_FDCWD: Final = -100
# memfd_create refused: by a seccomp filter (EPERM, EACCES) or an old kernel (ENOSYS).
_REFUSED: Final = frozenset({errno.ENOSYS, errno.EPERM, errno.EACCES})


def shared_memory(
    inferior: Inferior, inject: SyscallInjector, scratch: int, size: int
) -> tuple[int, mmap.mmap]:
    """(the program's fd, the server's mapping) of `size` zeroed bytes. `scratch`: program
    memory the debugger may write a file name into for the duration (the code region)."""
    try:
        with _text_at(inferior, scratch, MEMFD_NAME) as name:
            fd = inject.call(SYS_MEMFD_CREATE, name, _MFD_CLOEXEC)
    except OSError as error:
        if error.errno in _REFUSED:
            return _from_server(inferior, inject, scratch, size)
        raise TargetError(
            f"could not make the patch area's shared memory: {error.strerror}"
        ) from None
    try:
        inject.call(SYS_FTRUNCATE, fd, size)
        return fd, _view(f"/proc/{inferior.pid}/fd/{fd}", size)
    except BaseException:
        inject.call(SYS_CLOSE, fd)
        raise


def _from_server(
    inferior: Inferior, inject: SyscallInjector, scratch: int, size: int
) -> tuple[int, mmap.mmap]:
    ours = os.memfd_create(MEMFD_NAME, os.MFD_CLOEXEC)
    try:
        os.ftruncate(ours, size)
        view = mmap.mmap(ours, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        try:
            with _text_at(inferior, scratch, f"/proc/{os.getpid()}/fd/{ours}") as path:
                fd = inject.call(SYS_OPENAT, _AT_FDCWD, path, os.O_RDWR | os.O_CLOEXEC)
        except OSError as error:
            view.close()
            raise TargetError(
                f"the program could not open the patch area's shared memory: {error.strerror}"
            ) from None
        return fd, view
    finally:
        os.close(ours)


@contextmanager
def _text_at(inferior: Inferior, address: int, text: str) -> Iterator[int]:
    """`text` as a C string at `address` in the program for the duration (a file name a
    system call reads), zeroed again after."""
    data = text.encode() + b"\0"
    inferior.memory.write(address, data)
    try:
        yield address
    finally:
        inferior.memory.write(address, bytes(len(data)))


def _view(path: str, size: int) -> mmap.mmap:
    """The server's own mapping of a file the program holds open."""
    try:
        ours = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError as error:
        raise TargetError(
            f"could not open the patch area's shared memory: {error.strerror}"
        ) from None
    try:
        return mmap.mmap(ours, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    finally:
        os.close(ours)
