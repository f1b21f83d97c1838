"""gdb's type of `$_siginfo` on x86-64 Linux (linux-tdep.c, linux_get_siginfo_type_with_fields).

gdb builds this type itself instead of taking the program's siginfo_t, so it prints the same
with or without debug information: `struct siginfo` whose `_sifields` union starts with the
vector `int _pad __attribute__ ((vector_size(28)))`. gdb lays the members out one after the
other and aligns only where it asks to (`_sifields` and `_addr_bnd` to a long), so the
`_sigchld` times sit at bytes 12 and 20, not where the kernel writes them: the offsets
below are gdb's, measured by writing each member through gdb 13 and reading `_pad` back.
"""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    Member,
    PointerType,
    StructType,
    Type,
    TypedefType,
    VoidType,
)

SIGINFO_SIZE = 128  # the kernel's siginfo_t, as PTRACE_GETSIGINFO fills it
_PAD_INTS = SIGINFO_SIZE // 4 - 4  # the union: 28 ints on a 64-bit target


def siginfo_type() -> StructType:
    """A new `struct siginfo` as gdb 13 shows it for an x86-64 Linux program."""
    int_ = BaseType("int", 4, Encoding.SIGNED)
    uint = BaseType("unsigned int", 4, Encoding.UNSIGNED)
    long_ = BaseType("long", 8, Encoding.SIGNED)
    short = BaseType("short", 2, Encoding.SIGNED)
    void_ptr = PointerType(VoidType())
    pid_t, uid_t = TypedefType("__pid_t", int_), TypedefType("__uid_t", uint)
    clock_t = TypedefType("__clock_t", long_)
    sigval = _composite("union", "sigval_t", 8, [("sival_int", int_, 0), ("sival_ptr", void_ptr, 0)])
    bounds = _composite("struct", None, 16, [("_lower", void_ptr, 0), ("_upper", void_ptr, 8)])
    fields: list[tuple[str, Type, int]] = [
        ("_pad", ArrayType(int_, _PAD_INTS, vector=True), 0),
        ("_kill", _composite("struct", None, 8, [("si_pid", pid_t, 0), ("si_uid", uid_t, 4)]), 0),
        ("_timer", _composite("struct", None, 16, [("si_tid", int_, 0), ("si_overrun", int_, 4),
                                                   ("si_sigval", sigval, 8)]), 0),
        ("_rt", _composite("struct", None, 16, [("si_pid", pid_t, 0), ("si_uid", uid_t, 4),
                                                ("si_sigval", sigval, 8)]), 0),
        ("_sigchld", _composite("struct", None, 28, [("si_pid", pid_t, 0), ("si_uid", uid_t, 4),
                                                     ("si_status", int_, 8), ("si_utime", clock_t, 12),
                                                     ("si_stime", clock_t, 20)]), 0),
        ("_sigfault", _composite("struct", None, 32, [("si_addr", void_ptr, 0), ("_addr_lsb", short, 8),
                                                      ("_addr_bnd", bounds, 16)]), 0),
        ("_sigpoll", _composite("struct", None, 12, [("si_band", long_, 0), ("si_fd", int_, 8)]), 0),
        ("_sigsys", _composite("struct", None, 16, [("_call_addr", void_ptr, 0), ("_syscall", int_, 8),
                                                    ("_arch", uint, 12)]), 0),
    ]  # fmt: skip
    sifields = _composite("union", None, 4 * _PAD_INTS, fields)
    return _composite("struct", "siginfo", SIGINFO_SIZE, [
        ("si_signo", int_, 0), ("si_errno", int_, 4), ("si_code", int_, 8), ("_sifields", sifields, 16)])


def _composite(keyword: str, tag: str | None, size: int, members: list[tuple[str, Type, int]]) -> StructType:
    made = StructType(keyword, tag, size)
    made.members = [Member(name, member_type, offset) for name, member_type, offset in members]
    return made
