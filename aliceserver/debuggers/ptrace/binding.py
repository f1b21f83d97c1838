"""Our own small ctypes layer over ptrace(2), waitpid(2) and friends (Linux x86-64).

Only the tracer thread may call the ptrace functions here: Linux accepts ptrace requests
only from the thread that attached. Every failure raises OSError with the errno.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from typing import Final

from aliceserver.debuggers.regsets import REGISTER_NAMES as REGISTER_NAMES  # UserRegs' layout

PTRACE_PEEKUSER: Final = 3
PTRACE_POKEUSER: Final = 6
PTRACE_CONT: Final = 7
PTRACE_KILL: Final = 8
PTRACE_SINGLESTEP: Final = 9
PTRACE_GETREGS: Final = 12
PTRACE_SETREGS: Final = 13
PTRACE_GETFPREGS: Final = 14
PTRACE_DETACH: Final = 17
PTRACE_SYSCALL: Final = 24
PTRACE_SETOPTIONS: Final = 0x4200
PTRACE_GETEVENTMSG: Final = 0x4201
PTRACE_GETSIGINFO: Final = 0x4202
PTRACE_GETREGSET: Final = 0x4204
PTRACE_SETREGSET: Final = 0x4205
PTRACE_SEIZE: Final = 0x4206
PTRACE_INTERRUPT: Final = 0x4207
PTRACE_LISTEN: Final = 0x4208
PTRACE_GET_SYSCALL_INFO: Final = 0x420E
PTRACE_SYSCALL_INFO_ENTRY: Final = 1

PTRACE_O_TRACESYSGOOD: Final = 0x1
PTRACE_O_TRACEFORK: Final = 0x2
PTRACE_O_TRACEVFORK: Final = 0x4
PTRACE_O_TRACECLONE: Final = 0x8
PTRACE_O_TRACEEXEC: Final = 0x10
PTRACE_O_TRACEVFORKDONE: Final = 0x20
PTRACE_O_EXITKILL: Final = 0x100000

PTRACE_EVENT_FORK: Final = 1
PTRACE_EVENT_VFORK: Final = 2
PTRACE_EVENT_CLONE: Final = 3
PTRACE_EVENT_EXEC: Final = 4
PTRACE_EVENT_VFORK_DONE: Final = 5
PTRACE_EVENT_EXIT: Final = 6
PTRACE_EVENT_STOP: Final = 128

WNOHANG: Final = 1
WUNTRACED: Final = 2
WNOTHREAD: Final = 0x20000000  # __WNOTHREAD: only this thread's children and tracees
WALL: Final = 0x40000000  # __WALL: threads and processes alike

NT_PRFPREG: Final = 2
NT_X86_XSTATE: Final = 0x202

# offsetof(struct user, u_debugreg) on x86-64.
DEBUGREG_OFFSET: Final = 848

ADDR_NO_RANDOMIZE: Final = 0x0040000

class UserRegs(ctypes.Structure):
    _fields_ = [(name, ctypes.c_ulonglong) for name in REGISTER_NAMES]


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


@dataclass(frozen=True, slots=True)
class SigInfo:
    signo: int
    errno: int
    code: int
    address: int  # si_addr for faults; si_pid for signals sent by kill()
    sender_pid: int


def load_libc() -> ctypes.CDLL:
    """The C library, for ctypes calls with errno kept."""
    # glibc's soname first: ctypes.util imports subprocess, tempfile and more to find it.
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        from ctypes.util import find_library

        return ctypes.CDLL(find_library("c") or "libc.so.6", use_errno=True)


class Libc:
    """The few libc entry points the engine needs, typed, with errno checking."""

    def __init__(self) -> None:
        lib = load_libc()
        self._ptrace = lib.ptrace
        self._ptrace.restype = ctypes.c_long
        self._ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        self._waitpid = lib.waitpid
        self._waitpid.restype = ctypes.c_int
        self._waitpid.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        self._status = ctypes.c_int(0)
        self._status_ref = ctypes.byref(self._status)
        self._siginfo = ctypes.create_string_buffer(128)
        self._eventmsg = ctypes.c_ulong(0)

    def ptrace(self, request: int, pid: int, addr: int = 0, data: int = 0) -> int:
        ctypes.set_errno(0)
        result: int = self._ptrace(request, pid, addr, data)
        if result == -1:
            err = ctypes.get_errno()
            if err:
                raise OSError(err, f"ptrace({request:#x}, {pid}): {os.strerror(err)}")
        return result

    def ptrace_ref(self, request: int, pid: int, addr: int, data: ctypes._CData) -> None:
        """A ptrace call whose data argument is a pointer to a ctypes object."""
        if self._ptrace(request, pid, addr, ctypes.addressof(data)) == -1:
            err = ctypes.get_errno()
            raise OSError(err, f"ptrace({request:#x}, {pid}): {os.strerror(err)}")

    def waitpid(self, pid: int, options: int) -> tuple[int, int]:
        """Wait for a child or tracee; (0, 0) with WNOHANG when nothing is ready."""
        while True:
            result = self._waitpid(pid, self._status_ref, options)
            if result >= 0:
                return result, self._status.value
            err = ctypes.get_errno()
            if err != 4:  # EINTR: retry
                raise OSError(err, f"waitpid({pid}): {os.strerror(err)}")

    def get_regs(self, tid: int, regs: UserRegs) -> None:
        self.ptrace_ref(PTRACE_GETREGS, tid, 0, regs)

    def set_regs(self, tid: int, regs: UserRegs) -> None:
        self.ptrace_ref(PTRACE_SETREGS, tid, 0, regs)

    def get_regset(self, tid: int, note_type: int, size: int) -> bytes:
        buffer = ctypes.create_string_buffer(size)
        iov = IoVec(ctypes.cast(buffer, ctypes.c_void_p), size)
        self.ptrace_ref(PTRACE_GETREGSET, tid, note_type, iov)
        return buffer.raw[: iov.len]

    def set_regset(self, tid: int, note_type: int, data: bytes) -> None:
        buffer = ctypes.create_string_buffer(data, len(data))
        iov = IoVec(ctypes.cast(buffer, ctypes.c_void_p), len(data))
        self.ptrace_ref(PTRACE_SETREGSET, tid, note_type, iov)

    def siginfo_bytes(self, tid: int) -> bytes:
        """The thread's last stop's siginfo_t, as the kernel wrote it (128 bytes)."""
        self.ptrace_ref(PTRACE_GETSIGINFO, tid, 0, self._siginfo)
        return self._siginfo.raw

    def get_siginfo(self, tid: int) -> SigInfo:
        raw = self.siginfo_bytes(tid)
        signo, errno_, code = (int.from_bytes(raw[i : i + 4], "little", signed=True) for i in (0, 4, 8))
        address = int.from_bytes(raw[16:24], "little")
        sender = int.from_bytes(raw[16:20], "little", signed=True)
        return SigInfo(signo, errno_, code, address, sender)

    def get_event_msg(self, tid: int) -> int:
        self.ptrace_ref(PTRACE_GETEVENTMSG, tid, 0, self._eventmsg)
        return int(self._eventmsg.value)

    def syscall_op(self, tid: int) -> int:
        """At a syscall stop: PTRACE_SYSCALL_INFO_ENTRY, or 2 at its exit (Linux 5.3)."""
        info = ctypes.create_string_buffer(88)  # struct ptrace_syscall_info
        self.ptrace_ref(PTRACE_GET_SYSCALL_INFO, tid, len(info), info)
        return info.raw[0]

    def peek_user(self, tid: int, offset: int) -> int:
        return self.ptrace(PTRACE_PEEKUSER, tid, offset, 0) & 0xFFFFFFFFFFFFFFFF

    def poke_user(self, tid: int, offset: int, value: int) -> None:
        self.ptrace(PTRACE_POKEUSER, tid, offset, value)


class ProcessMemory:
    """A process's memory through /proc/PID/mem: one pread/pwrite per access."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._fd = os.open(f"/proc/{pid}/mem", os.O_RDWR | os.O_CLOEXEC)

    def read(self, address: int, size: int) -> bytes:
        # The file offset is an off_t: past 2**63 (kernel space) pread would overflow.
        if address < 0 or size < 0 or address + size > 1 << 63:
            raise OSError(14, "bad address")  # EFAULT
        data = b""
        while len(data) < size:
            chunk = os.pread(self._fd, size - len(data), address + len(data))
            if not chunk:
                raise OSError(5, "end of readable memory")  # EIO, like an unmapped page
            data += chunk
        return data

    def write(self, address: int, data: bytes) -> None:
        if address < 0 or address + len(data) > 1 << 63:
            raise OSError(14, "bad address")  # EFAULT
        written = 0
        while written < len(data):
            n = os.pwrite(self._fd, data[written:], address + written)
            if n <= 0:
                raise OSError(5, "short write")
            written += n

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
