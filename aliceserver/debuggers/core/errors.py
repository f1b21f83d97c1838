"""The core-file layer's typed errors, worded as gdb words them."""

from __future__ import annotations

from aliceserver.errors import TargetError


class CoreFormatError(TargetError):
    """The file is no x86-64 Linux core we can read: gdb's "is not a core dump" and
    "no core file handler recognizes format"."""


class CoreMemoryError(TargetError):
    """An address the core neither holds nor maps from a file: gdb's "Cannot access memory"."""

    def __init__(self, address: int) -> None:
        super().__init__(f"Cannot access memory at address {address:#x}")
        self.address = address


def not_a_core(path: str) -> CoreFormatError:
    return CoreFormatError(f'"{path}" is not a core dump: file format not recognized')


def no_handler(path: str) -> CoreFormatError:
    return CoreFormatError(f'"{path}": no core file handler recognizes format')
