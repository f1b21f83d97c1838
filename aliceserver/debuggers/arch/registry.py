"""The architecture of a program: by its ELF header's e_machine, by gdb's name for it
(a target description's <architecture>), and the check that both agree."""

from __future__ import annotations

from aliceserver.debuggers.arch.aarch64 import AArch64
from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.arch.x86_64 import X86_64
from aliceserver.errors import TargetError, Unsupported

X86_64_ARCH: Architecture = X86_64()
AARCH64_ARCH: Architecture = AArch64()
ARCHITECTURES: tuple[Architecture, ...] = (X86_64_ARCH, AARCH64_ARCH)


def by_e_machine(e_machine: int | str) -> Architecture:
    """The architecture of an ELF file's e_machine (its number, or pyelftools' EM_ name)."""
    for arch in ARCHITECTURES:
        if e_machine in (arch.e_machine, arch.elf_machine_name):
            return arch
    raise Unsupported(f"Architecture of ELF machine {e_machine} is not supported.")


def by_name(name: str) -> Architecture:
    """gdb's name (`set architecture`, a target description's <architecture>)."""
    for arch in ARCHITECTURES:
        if arch.name == name:
            return arch
    raise Unsupported(f'Undefined item: "{name}".')


def of_elf(path: str) -> Architecture:
    """The architecture of the ELF file at `path`, from its header alone."""
    with open(path, "rb") as stream:
        header = stream.read(20)
    if header[:4] != b"\x7fELF" or len(header) < 20:
        raise TargetError(f'"{path}": not in executable format: file format not recognized')
    machine = header[18:20]
    return by_e_machine(int.from_bytes(machine, "little" if header[5] == 1 else "big"))


def described_architecture(described: str) -> Architecture:
    """The architecture a target description names; x86-64, the engine's own, where it
    names none (gdbserver's before it debugs a process) or one we do not know."""
    for arch in ARCHITECTURES:
        if arch.name == described:
            return arch
    return X86_64_ARCH


def checked_against_description(program: Architecture, described: str) -> Architecture:
    """The program's architecture, once the stub's description says the same (an empty
    <architecture> says nothing)."""
    if described and described != program.name:
        # gdb's words when a description does not fit the program's architecture.
        raise TargetError("Architecture rejected target-supplied description")
    return program
