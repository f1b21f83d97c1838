"""gdb's `info files` (`info target`) and `maint info sections`: the program's file and
its sections as BFD reads them, for a live process relocated where they are loaded, with
the section table of each shared library and of the vDSO (read from memory) after the
program's, in the order gdb reads them (the loader, the vDSO, then the others); for a core
file its segments first, as BFD names them."""

from __future__ import annotations

import os

from aliceserver.adapters.mi.commands_stack import target_id
from aliceserver.adapters.mi.connections import remote
from aliceserver.adapters.mi.elf_sections import (
    Section,
    core_segments,
    entry_point,
    file_sections,
    read_sections,
)
from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.debuggers.model import Module
from aliceserver.debuggers.target_queries import TargetQueries
from aliceserver.errors import AliceError

_AT_SYSINFO_EHDR = 33
_VDSO_SIZE = 0x10000  # read at most this much of it: the kernel's vDSO is two pages


def _program(ctx: Context) -> str:
    program = ctx.session.inferior.program
    if not program:
        raise MiError("No executable file now.")
    return os.path.abspath(os.path.join(ctx.session.inferior.cwd, os.path.expanduser(program)))


def _bias(ctx: Context, path: str) -> int:
    """The program's load bias (0 before run)."""
    inferior = ctx.session.inferior
    if inferior.process is None:
        return 0
    try:
        modules = ctx.session.debugger.modules()
    except AliceError:
        return 0
    return next((m.base for m in modules if m.is_main), 0)


def _vdso(ctx: Context) -> tuple[int, list[Section]] | None:
    debugger = ctx.session.debugger
    if not isinstance(debugger, TargetQueries):
        return None
    try:
        base = dict(debugger.auxiliary_vector()).get(_AT_SYSINFO_EHDR)
    except AliceError:
        return None
    if not base:
        return None

    def read(offset: int, size: int) -> bytes:
        if offset + size > _VDSO_SIZE:
            raise ValueError("past the vDSO")
        return debugger.read_memory(base + offset, size)

    try:
        return base, read_sections(read)
    except (AliceError, ValueError):
        return None


def _rows(sections: list[Section], bias: int, where: str) -> str:
    return "".join(f"\t{s.address + bias:#018x} - {s.address + s.size + bias:#018x} is {s.name}{where}\n"
                   for s in sections if s.alloc)  # fmt: skip


def _libraries(ctx: Context) -> list[tuple[Module | None, str]]:
    """The libraries in gdb's order: the loader first, the vDSO after it, then the rest;
    for a core, the link map's order and the vDSO last."""
    libraries: list[tuple[Module | None, str]] = [(m, m.path) for m in ctx.session.inferior.libraries]
    vdso = (None, "vdso")
    if ctx.session.inferior.core is not None:
        return [*libraries, vdso]
    at = 1 if libraries and "/ld-" in libraries[0][1] else 0
    return [*libraries[:at], vdso, *libraries[at:]]


def info_files(ctx: Context, text: str) -> None:
    session = ctx.session
    inferior = session.inferior
    if remote(session) is not None:
        raise MiError('"info files" of a remote target is not supported by aliceserver.')
    if not inferior.program and inferior.core is None:
        return  # gdb's: no target has files to tell of
    path = _program(ctx)
    bias = _bias(ctx, path)
    out = [f'Symbols from "{path}".\n']
    live = inferior.process is not None and inferior.selected_tid is not None
    if inferior.core is not None:  # gdb's core target: the file's segments
        core = os.path.abspath(os.path.join(inferior.cwd, os.path.expanduser(inferior.core)))
        out.append(f"Local core dump file:\n\t`{core}', file type elf64-x86-64.\n")
        out.append(_rows(core_segments(core), 0, "") + "\tWhile running this, GDB does not access memory from...\n")
    elif live and inferior.process is not None and inferior.selected_tid is not None:
        how = "attached" if inferior.process.attached else "child"
        out.append(f"Native process:\n\tUsing the running image of {how} {target_id(session, inferior.selected_tid)}.\n"
                   "\tWhile running this, GDB does not access memory from...\n")
    out.append(f"Local exec file:\n\t`{path}', file type elf64-x86-64.\n")
    entry = entry_point(path)
    if entry is not None:
        out.append(f"\tEntry point: {entry + bias:#x}\n")
    out.append(_rows(file_sections(path), bias, ""))
    for module, _name in _libraries(ctx) if live else []:
        if module is not None:
            out.append(_rows(file_sections(module.path), module.base, f" in {module.path}"))
            continue
        vdso = _vdso(ctx)
        if vdso is not None:
            base, sections = vdso
            out.append(_rows(sections, base, f" in system-supplied DSO at {base:#x}"))
    ctx.console("".join(out))


def maint_info_sections(ctx: Context, text: str) -> None:
    """`maint info sections [NAME|FLAG...]`: the program's sections, those named or
    flagged so when any are given (gdb's match_substring of each word)."""
    words = text.split()
    if "ALLOBJ" in words or "-all-objects" in words:
        raise MiError('"maint info sections ALLOBJ" is not supported by aliceserver.')
    path = _program(ctx)
    bias = _bias(ctx, path)
    sections = file_sections(path)
    digits = len(str(len(sections)))
    out = [f"Exec file: `{path}', file type elf64-x86-64.\n"]
    for s in sections:
        if words and not any(word == s.name or word in s.flags for word in words):
            continue
        shift = bias if s.alloc else 0
        index = f" [{s.index}]"
        out.append(f"{index:<{digits + 4}}    {s.address + shift:#010x}->{s.address + s.size + shift:#010x}"
                   f" at {s.offset:#010x}: {s.name}{''.join(' ' + f for f in s.flags)}\n")
    ctx.console("".join(out))
