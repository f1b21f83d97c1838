"""ImageLoading: what the engine does when an image appears or changes, an object the
engine composes.

A launched, attached or exec'd process (live.py's `load_image`), a process behind a stub
(remote/session.py's `new_process`), a program read from its file for its symbols
(programfile.py) and each library the loader maps or unmaps all need the same answer:
new symbols, the loader's trap, the user's traps bound again, the libraries announced.
Kept together, the live and the remote paths share one reaction to the loader's news.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.core.buildid import file_build_id
from aliceserver.debuggers.events import (
    BreakpointChanged,
    ModuleLoaded,
    ModuleUnloaded,
    Output,
    StopReason,
)
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.librarypaths import TARGET_PREFIX, LibraryPaths
from aliceserver.debuggers.model import LaunchConfig, Module, ProcessInfo
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.breakpoints import Breakpoints
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.launcher import resolve_program
from aliceserver.debuggers.ptrace.libraries import LibraryTracker
from aliceserver.debuggers.ptrace.state import ProcessAccess
from aliceserver.debuggers.ptrace.traps import TrapTable
from aliceserver.debuggers.ptrace.watch import WatchSlots
from aliceserver.debuggers.remote.session import RemoteSession
from aliceserver.debuggers.remote.targetfiles import StubFiles, TargetFiles
from aliceserver.debuggers.source.library_symbols import LibrarySymbolControl
from aliceserver.debuggers.source.locations import Locations
from aliceserver.debuggers.symbols.dwarf import indexahead
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.elf import ElfCache
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.errors import AliceError, TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.remote.process import RemoteProcess

log = logging.getLogger(__name__)


class ImageLoading:
    """Symbols and traps for each new image or library, over ptrace or through a stub."""

    def __init__(
        self, access: ProcessAccess, *, events: EventSource, tracker: LibraryTracker, symbols: ProcessSymbols,
        elf_cache: ElfCache, library_paths: LibraryPaths, stub_files: StubFiles, traps: TrapTable,
        watches: WatchSlots, libc: binding.Libc, breakpoints: Breakpoints, remote: RemoteSession,
        locations: Locations, library_symbols: LibrarySymbolControl, new_source_symbols: Callable[[], None],
        loader_trap_hit: Callable[[int], None], index_cache: IndexCache,
    ) -> None:  # fmt: skip
        self._access = access
        self._events = events
        self._tracker = tracker
        self._symbols = symbols
        self._elf_cache = elf_cache
        self._library_paths = library_paths
        self._stub_files = stub_files
        self._traps = traps
        self._watches = watches
        self._libc = libc
        self._breakpoints = breakpoints
        self._remote = remote
        self._locations = locations
        self._library_symbols = library_symbols
        self._new_source_symbols = new_source_symbols  # the engine's: it holds the source level's
        # the loader's trap's on_hit, `on_library_event` under the one name Breakpoints knows
        self._loader_trap_hit = loader_trap_hit
        self._index_cache = index_cache  # the session's (libraries indexed ahead: indexahead.py)
        self.remote_address = ""  # the stub's, as given (its files' part of the cache)
        self.exec_file_mismatch = "ask"  # gdb's setting: ask (loads the stub's file), warn or off
        # the loader's events seen, and the paths the last one loaded and unloaded (remote's library stops)
        self.library_change: tuple[int, tuple[str, ...], tuple[str, ...]] = (0, (), ())
        # what the last image's start told: its modules, the loader's warnings
        self._image_news: tuple[ModuleLoaded | Output, ...] = ()
        self._kept: list[Module] = []  # a probe's libraries of the run that ended (_keep_libraries)

    # --- a program read from its file (programfile.py) ---------------------------------
    def hold_program_file(self, config: LaunchConfig) -> ProcessInfo | None:
        """A program this machine cannot start, read from its file for its symbols before
        a run (programfile.py); None: it can be started (the engine holds a copy of it)."""
        if self._access.inferior is not None or self._remote.live() is not None:
            return None
        try:
            path = resolve_program(config.program, config.cwd)
            image = self._elf_cache.get(path)
        except (AliceError, OSError):
            return None
        from aliceserver.debuggers.ptrace.programfile import ProgramFile, cannot_start_here

        if not cannot_start_here(image):
            return None
        self.drop_program_file()
        self._new_source_symbols()
        self._symbols.clear()
        self._symbols.set_main(path, 0)  # its link-time addresses
        self._access.program_file = ProgramFile(image)
        self._locations.bind_all(new_image=True)
        return ProcessInfo(0, path, attached=False)

    def drop_program_file(self) -> None:
        held, self._access.program_file = self._access.program_file, None
        if held is not None:  # only hold_program_file sets it, which imported programfile
            from aliceserver.debuggers.ptrace.programfile import ProgramFile

            if isinstance(held, ProgramFile):
                held.close()

    # --- a live process (live.py) ------------------------------------------------------
    def load_image(self, inferior: Inferior, at_launch: bool) -> None:
        """Symbols of the new image, the shared-library trap, and the user's traps."""
        self._drop_kept()
        self._new_source_symbols()
        try:
            loaded, r_brk = self._tracker.start(inferior.pid)
        except (AliceError, OSError) as error:
            log.warning("no symbols for process %d: %s", inferior.pid, error)
            loaded, r_brk = [], None
        if at_launch and loaded:
            self._keep_libraries()
        main = self._symbols.main()
        program = self._symbols.image_of(main.path) if main is not None else None
        if program is not None and not inferior.attached:  # its libraries are mapped later
            indexahead.start(self._index_cache, program, [module.path for module in loaded])
        # (attached: the loader is told with the libraries, as the loader's list has it)
        self._image_news = tuple(ModuleLoaded(module) for module in (loaded[:1] if inferior.attached else loaded))
        self.announce_image()
        if inferior.attached:
            r_brk = self._tracker.r_brk_from_memory() or r_brk
            self.on_library_event(0, known=loaded[1:])
        if r_brk:
            self._breakpoints.add_internal(r_brk, on_hit=self._loader_trap_hit)
        elif self._tracker.loader_unseen and self._tracker.entry and not inferior.attached:
            self._breakpoints.add_internal(self._tracker.entry, on_hit=self._at_entry_without_loader)
        self._image_news += self._tell_library_warnings()
        config = self._access.launch_config
        if at_launch and config is not None and config.stop_on_entry and self._tracker.entry:
            self._breakpoints.add_internal(self._tracker.entry, reports=StopReason.ENTRY, temporary=True)
        if at_launch or inferior.attached:
            for trap in self._traps.by_address.values():
                if trap.wanted:
                    self._insert_or_warn(inferior, trap.address)
        for tid in inferior.threads:
            self._watches.apply(self._libc, tid)
        self._breakpoints.armed.clear()  # the internal traps went with the old image
        self._breakpoints.arm_catchpoints()
        self._locations.bind_all(new_image=not at_launch)

    def announce_image(self) -> None:
        """What the last image's start told: its modules (and again, with the loader's
        warnings, for a process held for its symbols taken as a fresh start: live.py)."""
        config = self._access.launch_config
        if self._kept and (config is None or not config.symbols_only):  # the run reads the loader's list
            self._drop_kept()
            self._new_source_symbols()
        for news in self._image_news:
            self._events.put(news)

    def _keep_libraries(self) -> None:
        """A probe after a run (LaunchConfig.kept_libraries): the libraries of the run that
        ended keep their symbols at the biases they had, as gdb 13 keeps their objfiles until
        the next run re-reads the loader's list; unmapped here: their bytes are their files'
        (ProcessAccess.kept_library_at), their traps inserted as they load."""
        config = self._access.launch_config
        if config is None or not config.symbols_only:
            return
        for path, bias in config.kept_libraries:
            module = self._symbols.add_module(path, bias) if self._symbols.image_of(path) is None else None
            if module is not None:
                self._kept.append(module)

    def _drop_kept(self) -> None:
        """A run starts: the kept libraries go, and the breakpoints' places in them with
        their traps (never inserted: nothing is mapped there), bound again as they load."""
        kept, self._kept = self._kept, []
        for module in kept:
            self._locations.unbind_module(module)
            self._symbols.remove_module(module.path)

    def _insert_or_warn(self, inferior: Inferior, address: int) -> None:
        trap = self._traps.by_address[address]
        try:
            inferior.insert_trap(trap)
        except OSError:
            log.warning("cannot insert a breakpoint at %#x", address)
        for bp in trap.logical:
            if not bp.internal:
                self._events.put(BreakpointChanged(bp.info(trap.inserted)))

    # --- a process behind a stub (remote/session.py) ---------------------------------
    def load_remote_process(self, process: RemoteProcess, program: str | None) -> list[str]:
        """A process behind the stub: its symbols, the loader's trap, the user's traps, as
        `load_image` for a live one; the libraries announced."""
        # (here: the stub's library list is read with an XML parser no live session needs)
        from aliceserver.debuggers.remote.libraries import lists_libraries

        self._new_source_symbols()
        files = self._target_files(process)
        try:
            exe = self._checked_program(process, program, files) if program else None
            exe = exe or (TARGET_PREFIX if files is not None else "") + process.executable()
            listed = lists_libraries(process.client)  # no loader's trap: `library` stops tell
            loaded, r_brk = self._tracker.start(process.pid, process.auxv(), exe, [], local_files=files is None,
                                                with_loader=not listed)  # fmt: skip
            linked, _ = self._synced_libraries()  # attached to a running program: its libraries
        except (AliceError, OSError) as error:
            log.warning("no symbols for the remote process %d: %s", process.pid, error)
            loaded, linked, r_brk, listed = [], [], None, False
        for module in loaded + linked:
            self._events.put(ModuleLoaded(module))
        self._tell_library_warnings()
        r_brk = None if listed else self._tracker.r_brk_from_memory() or r_brk
        if r_brk:
            self._remote.traps.add_internal(r_brk, on_hit=self._loader_trap_hit)
        elif self._tracker.loader_unseen and self._tracker.entry:
            self._remote.traps.add_internal(self._tracker.entry, on_hit=self._at_entry_without_loader)
        self._remote.traps.place_all()
        self._locations.bind_all(new_image=True)
        return [module.path for module in loaded + linked if not module.is_main]

    def _checked_program(self, process: RemoteProcess, program: str, files: TargetFiles | None) -> str | None:
        """gdb's validate_exec_file: the program named is compared by build id with the
        one the stub runs; on a mismatch gdb's warning and, under `ask` (answered yes, no
        terminal), None: the stub's file is loaded instead."""
        mode = self.exec_file_mismatch
        if mode == "off":
            return program
        try:
            target = process.executable()
        except TargetError:
            return program
        mine = file_build_id(program)
        theirs = files.build_id(target) if files is not None else file_build_id(self._library_paths.joined(target))
        if mine is None or theirs is None or mine == theirs:
            return program
        # gdb names the stub's file by its path alone (the program named is a local one),
        # and writes its warning in three pieces (MI: three records), cut at the names
        for piece in (f"warning: Build ID mismatch between current exec-file {program}\n"
                      "and automatically determined exec-file ",
                      f'{target}\nexec-file-mismatch handling is currently "', f'{mode}"\n'):
            self._events.put(Output("warning", piece))  # fmt: skip
        if mode != "ask":
            return program
        self._events.put(Output("console", f'Load new symbol table from "{target}"? (y or n) '
                                           "[answered Y; input not from terminal]\n"
                                           f"Reading symbols from {target}...\n"))  # fmt: skip
        return None

    def _target_files(self, process: RemoteProcess) -> TargetFiles | None:
        """The stub's files read through it (gdb's sysroot `target:`), once per link; the
        ELF cache reads `target:` paths from their copies."""
        files = self._stub_files.for_link(process.client, self._library_paths, self.remote_address)
        if files is not None:
            files.debugging(process.pid)
        self._elf_cache.target_files = files.local_copy if files is not None else None
        return files

    # --- the libraries' paths and the loader's news, from either backend ---------------
    def set_library_paths(self, sysroot: str | None, search_path: str | None, stopped: Callable[[], bool]) -> None:
        """gdb's `set sysroot` / `set solib-search-path`: the libraries of a stopped
        process are looked up again at once (gdb's reload_shared_libraries), the others'
        at their next load."""
        if sysroot is not None:
            self._library_paths.set_sysroot(sysroot)
        if search_path is not None:
            self._library_paths.set_search_path(search_path)
        if stopped():
            self._access.run_on_engine(lambda: self.on_library_event(0))

    def on_library_event(self, _tid: int, known: Sequence[Module] = ()) -> None:
        """The loader's news; `known`: those read before (the loader, at an attach), told
        with the others in the loader's list's order, as gdb reads an attached process's
        whole list at once (the loader after the libraries the program was linked with)."""
        loaded, unloaded = self._synced_libraries()
        self.library_change = (self.library_change[0] + 1, tuple(m.path for m in loaded),
                               tuple(m.path for m in unloaded))  # fmt: skip
        told = loaded
        if known:
            symbols = self._tracker.symbols
            symbols.order_as_linked()
            order = {module.path: index for index, module in enumerate(symbols.mapped_modules())}
            told = sorted([*known, *loaded], key=lambda module: order.get(module.path, len(order)))
        for module in told:
            self._events.put(ModuleLoaded(module))
        self._tell_library_warnings()
        for module in unloaded:
            self._events.put(ModuleUnloaded(module))
            self._locations.unbind_module(module)
        self._breakpoints.catch_library_change(loaded, unloaded)
        # gdb's auto-solib-add: the loader's news bring back what `nosharedlibrary` dropped
        self._library_symbols.read_library_symbols(None)
        if loaded:
            self._breakpoints.arm_catchpoints()
            self._locations.bind_all()

    def _synced_libraries(self) -> tuple[list[Module], list[Module]]:
        """The libraries loaded and unloaded since the last look: from the stub's own list
        where it gives one instead of an SVR4 link map (gdb's solib-target), else from
        the loader's link map."""
        process = self._remote.live()
        if process is None:  # where library stops are asked for, gdb's reading at every event
            return self._tracker.sync(any_state=self._breakpoints.catching_libraries)
        from aliceserver.debuggers.remote.libraries import (
            lists_libraries,
            read_listed,
            svr4_link_map,
        )

        if not lists_libraries(process.client):  # gdb's svr4: the stub's list where it gives one,
            entries = svr4_link_map(process.client)  # whatever r_state says; else the link map
            return self._tracker.sync(any_state=True) if entries is None else self._tracker.sync_entries(entries)
        try:
            return self._tracker.sync_listed(read_listed(process.client))
        except (AliceError, OSError) as error:
            log.warning("reading the stub's library list: %s", error)
            return [], []

    def _at_entry_without_loader(self, tid: int) -> None:
        """The program's entry, where the loader's breakpoint was not found (its file is not
        under the sysroot): the loader has mapped the libraries the program was linked with
        (gdb lists them at the next stop); its breakpoint, read from r_debug now, follows
        the rest."""
        self.on_library_event(tid)
        r_brk = self._tracker.r_brk_from_memory()
        if r_brk and self._remote.live() is not None:
            self._remote.traps.add_internal(r_brk, on_hit=self._loader_trap_hit)
        elif r_brk:
            self._breakpoints.add_internal(r_brk, on_hit=self._loader_trap_hit)

    def _tell_library_warnings(self) -> tuple[Output, ...]:
        told = tuple(Output("warning", f"warning: {text}\n") for text in self._tracker.take_warnings())
        for warning in told:
            self._events.put(warning)
        return told
