"""Compile the C++ (g++) and Rust (rustc) test programs at test time, cached like build.py."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from tests.support.build import PROGRAMS_DIR, BuildError, compile_cached

CPP_FLAGS: tuple[str, ...] = ("-g", "-O0", "-fno-omit-frame-pointer")
RUST_FLAGS: tuple[str, ...] = ("-g", "-C", "opt-level=0")


def find_cxx() -> str | None:
    return shutil.which("g++")


def find_rustc() -> str | None:
    return shutil.which("rustc")


def find_clang(cpp: bool = False) -> str | None:
    """clang 16 (DWARF 5 with the indexed forms by default), else any clang."""
    name = "clang++" if cpp else "clang"
    return shutil.which(f"{name}-16") or shutil.which(name)


@dataclass
class MoreBuilder:
    """Builds tests/programs/NAME.cpp and NAME.rs once per (source, flags, compiler)."""

    cache_dir: Path
    programs_dir: Path = PROGRAMS_DIR
    _versions: dict[str, str] = field(default_factory=dict, init=False)
    _built: dict[str, Path] = field(default_factory=dict, init=False)

    def _version(self, compiler: str) -> str:
        if compiler not in self._versions:
            out = subprocess.run(
                [compiler, "--version"], capture_output=True, text=True, check=True
            )
            self._versions[compiler] = out.stdout.splitlines()[0] if out.stdout else "unknown"
        return self._versions[compiler]

    def build_cpp(self, name: str, flags: Sequence[str] = CPP_FLAGS, also: Sequence[str] = ()) -> Path:
        """tests/programs/NAME.cpp, linked with the units named in `also` (built with it)."""
        compiler = find_cxx()
        if compiler is None:
            raise BuildError("g++ not found")
        return self._build(name, ".cpp", compiler, flags, also)

    def build_clang(self, name: str, flags: Sequence[str], suffix: str = ".c") -> Path:
        """tests/programs/NAME.c (or .cpp) built by clang with `flags`."""
        compiler = find_clang(cpp=suffix == ".cpp")
        if compiler is None:
            raise BuildError("clang not found")
        return self._build(name, suffix, compiler, flags)

    def build_rust(self, name: str, flags: Sequence[str] = RUST_FLAGS) -> Path:
        compiler = find_rustc()
        if compiler is None:
            raise BuildError("rustc not found")
        return self._build(name, ".rs", compiler, flags)

    def _build(self, name: str, suffix: str, compiler: str, flags: Sequence[str],
               also: Sequence[str] = ()) -> Path:  # fmt: skip
        source = self.programs_dir / f"{name}{suffix}"
        if not source.is_file():
            raise FileNotFoundError(f"no test program {source.name} in {self.programs_dir.name}/")
        others = [self.programs_dir / f"{other}{suffix}" for other in also]
        return compile_cached(
            compiler, self._version(compiler), source, flags, self.cache_dir, self._built, others
        )
