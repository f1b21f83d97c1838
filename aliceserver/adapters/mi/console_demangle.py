"""gdb's `demangle [-l LANGUAGE] [--] NAME`: a mangled name as the language's demangler
reads it (gdb 13's demangle_command). C++, Rust and gdb's auto language use gdb_demangle
(libiberty's C++ demangler, Rust's legacy form keeping its hash, Rust v0); C, assembler
and the other languages without a demangler say they cannot; D, Go and Ada names, which
gdb reads with demanglers of their own, are refused."""

from __future__ import annotations

import re

from aliceserver.adapters.mi.commands_misc import current_language
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.debuggers.symbols.dwarf import rust_demangle
from aliceserver.debuggers.symbols.dwarf.names import Demangler
from aliceserver.errors import TargetError

_GDB_DEMANGLE = {"auto", "local", "c++", "rust"}
_NONE = {"c", "objective-c", "fortran", "opencl", "pascal", "modula-2", "asm", "minimal"}
_OWN = {"d", "go", "ada"}
_USAGE = "Usage: demangle [-l LANGUAGE] [--] NAME"
_demangler: Demangler | None = None


def _arguments(text: str) -> tuple[str | None, str]:
    language: str | None = None
    rest = text.strip()
    while rest.startswith("-"):
        word, _, after = rest.partition(" ")
        if word == "--":
            rest = after.strip()
            break
        if word != "-l":
            raise MiError(f"Unrecognized option '{word}' to demangle command.  Try \"help demangle\".")
        language, _, rest = after.strip().partition(" ")
        if not language:
            raise MiError(_USAGE)
        rest = rest.strip()
    if not rest:
        raise MiError(_USAGE)
    return language, rest


def _legacy_rust(name: str) -> str | None:
    """libiberty's legacy Rust form: the path with its hash."""
    if not rust_demangle.is_legacy_rust(name):
        return None
    try:
        bare = rust_demangle.demangle_legacy(name)
    except TargetError:
        return None
    hash_part = name[:-1].rsplit("17h", 1)[-1] if name.endswith("E") else ""
    return f"{bare}::h{hash_part}" if len(hash_part) == 16 else bare


def _base62(text: str) -> int:
    digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    value = 0
    for ch in text:
        value = value * 62 + digits.index(ch)
    return value + 1 if text else 0


def _crate_roots(name: str, shown: str) -> str:
    """libiberty's v0 form names each crate root with its disambiguator (`mycrate[3c1c0]`),
    which the demangler kept for symbol lookups leaves out."""
    for found in re.finditer(r"Cs([0-9a-zA-Z]*)_(\d+)", name):
        length = int(found.group(2))
        crate = name[found.end():found.end() + length]
        tag = f"{crate}[{_base62(found.group(1)) + 1:x}]"
        shown = re.sub(rf"(?<![\w\[]){re.escape(crate)}(?=::|$|[>,\] ])", tag, shown, count=1)
    return shown


def gdb_demangle(name: str) -> str | None:
    global _demangler
    if name.startswith("_R"):
        try:
            return _crate_roots(name, rust_demangle.demangle_v0(name))
        except TargetError:
            return None
    legacy = _legacy_rust(name)
    if legacy is not None:
        return legacy
    if _demangler is None:
        _demangler = Demangler()
    shown = _demangler.demangle(name) if name.startswith("_Z") else name
    return None if shown == name else shown


def demangle(ctx: Context, text: str) -> Reply:
    language, name = _arguments(text)
    if language is None:
        language = current_language(ctx)
    elif language not in _GDB_DEMANGLE | _NONE | _OWN:
        raise MiError(f'Unknown language "{language}"')
    if language in _OWN:
        raise MiError(f'"demangle -l {language}" is not supported by aliceserver.')
    shown = gdb_demangle(name) if language in _GDB_DEMANGLE else None
    if shown is None:
        raise MiError(f'Can\'t demangle "{name}"')
    ctx.console(shown + "\n")
    return None


def register(registry: CliRegistry) -> None:
    registry.add("demangle", demangle)
