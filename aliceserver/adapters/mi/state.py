"""What the session knows of its inferior (gdb's inferior 1): program, run settings, the
live process, gdb's thread numbers and the selected thread and frame."""

from __future__ import annotations

from dataclasses import dataclass, field

from aliceserver.debuggers.model import LaunchConfig, Module, ProcessInfo
from aliceserver.session.runstate import RunPhase, RunState


@dataclass
class Inferior:
    program: str | None
    number: int = 1  # gdb's inferior number (`inferior N`, thread ids N.T, group iN)
    connection: str | None = None  # added on this connection (`native`, `remote HOST:PORT`)
    args: list[str] = field(default_factory=list)
    args_text: str | None = None  # `set args` / -exec-arguments as typed (shown by `show args`)
    tty: str | None = None
    cwd: str = "."
    cwd_setting: str = ""  # `set cwd` as typed ("": unset, the inferior starts in ours)
    env: dict[str, str | None] = field(default_factory=dict)  # set (str) or unset (None)
    process: ProcessInfo | None = None  # the user's process (never the symbol probe)
    core: str | None = None  # the core file `process` is read from (no live process then)
    core_threads: tuple[int, ...] = ()  # a core being opened: its threads, the signalled one first
    # The session core's run state of `process`: running, stopped at its last stop...
    run: RunState = field(default_factory=RunState)
    probe_pid: int | None = None  # a process held at its first instruction, for symbols
    probe_config: LaunchConfig | None = None  # how it was started (`run` takes it if the same)
    ran: bool = False  # its program ran: gdb keeps its image at the load addresses (probe's too)
    threads: dict[int, int] = field(default_factory=dict)  # tid -> gdb thread number
    thread_pointers: dict[int, int] = field(default_factory=dict)  # tid -> pthread_t (fs_base)
    thread_names: dict[int, str] = field(default_factory=dict)  # tid -> `thread name` (thread_names.py)
    next_thread: int = 1
    selected_tid: int | None = None
    selected_level: int = 0
    reported_tid: int | None = None  # the thread of the last stop shown (gdb's previous_inferior_ptid)
    exit_code: int | None = None
    killing: bool = False  # `kill` waits for its Exited: print "killed", no *stopped
    killing_quietly: bool = False  # run's kill of the old process: gdb prints nothing for it
    detaching: bool = False
    leader_exited: bool = False  # told exited alone (pthread_exit): gdb adds it back at the end
    libraries: list[Module] = field(default_factory=list)
    # The libraries of the process that ended, (path, bias): gdb 13 keeps their symbols
    # until the next run (the symbol probe's LaunchConfig.kept_libraries)
    kept_libraries: tuple[tuple[str, int], ...] = ()
    # `nosharedlibrary` emptied gdb's list (=library-unloaded): the next look at the
    # loader's list (`info sharedlibrary`, `sharedlibrary`) announces them again
    libraries_forgotten: bool = False
    last_registers: dict[str, int] = field(default_factory=dict)
    _tids: dict[int, int] = field(default_factory=dict, repr=False, compare=False)  # tid_of's

    @property
    def running(self) -> bool:
        return self.run.phase is RunPhase.RUNNING

    def add_thread(self, tid: int) -> int:
        number = self.threads.get(tid)
        if number is None:
            number = self.threads[tid] = self.next_thread
            self.next_thread += 1
        if self.selected_tid is None:
            self.selected_tid = tid
        return number

    def remove_thread(self, tid: int) -> int | None:
        self.thread_pointers.pop(tid, None)
        self.thread_names.pop(tid, None)
        return self.threads.pop(tid, None)

    def tid_of(self, number: int) -> int | None:
        # Each `--thread N` asks: a scan of 1,000 threads per command was 25 us. The reverse
        # map is checked against `threads` (the truth) and made anew when it disagrees.
        tid = self._tids.get(number)
        if tid is not None and self.threads.get(tid) == number:
            return tid
        self._tids = {num: tid for tid, num in self.threads.items()}
        return self._tids.get(number)

    def forget_process(self) -> None:
        if self.process is not None:
            self.kept_libraries = tuple((module.path, module.base) for module in self.libraries if not module.is_main)
        self.ran = self.ran or self.process is not None
        self.process = None
        self.core = None
        self.run.forget()
        self.leader_exited = False
        self.threads.clear()
        self.thread_pointers.clear()
        self.thread_names.clear()
        self.next_thread = 1
        self.selected_tid = None
        self.selected_level = 0
        self.reported_tid = None
        self.libraries.clear()
        self.libraries_forgotten = False
        self.last_registers.clear()
