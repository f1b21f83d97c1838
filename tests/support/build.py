"""Compile tests/programs/*.c at test time into a cache keyed by source hash and flags."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

PROGRAMS_DIR = Path(__file__).resolve().parent.parent / "programs"
DEFAULT_FLAGS: tuple[str, ...] = ("-g", "-O0", "-fno-omit-frame-pointer", "-pthread")


class BuildError(RuntimeError):
    """gcc failed on a test program."""


def find_compiler() -> str | None:
    """Path of gcc, or None when it is missing."""
    return shutil.which("gcc")


def marker_line(source: Path | str, name: str) -> int:
    """1-based number of the single line carrying `@bp:name` in `source`."""
    path = Path(source)
    if not path.is_absolute() and not path.exists():
        path = PROGRAMS_DIR / path
    tag = f"@bp:{name}"
    pattern = re.compile(re.escape(tag) + r"(?![\w-])")
    lines = path.read_text().splitlines()
    hits = [number for number, line in enumerate(lines, start=1) if pattern.search(line)]
    if len(hits) != 1:
        raise LookupError(f"{path.name}: expected one line marked {tag}, found {len(hits)}")
    return hits[0]


@dataclass
class Builder:
    """Builds programs once per (source, flags, compiler) and reuses the result."""

    cache_dir: Path
    compiler: str
    programs_dir: Path = PROGRAMS_DIR
    _version: str = field(default="", init=False)
    _built: dict[str, Path] = field(default_factory=dict, init=False)

    def source(self, name: str) -> Path:
        path = self.programs_dir / f"{name}.c"
        if not path.is_file():
            raise FileNotFoundError(f"no test program {path.name} in {self.programs_dir.name}/")
        return path

    def compiler_version(self) -> str:
        if not self._version:
            out = subprocess.run(
                [self.compiler, "--version"], capture_output=True, text=True, check=True
            )
            self._version = out.stdout.splitlines()[0] if out.stdout else "unknown"
        return self._version

    def build(
        self,
        name: str,
        flags: Sequence[str] = DEFAULT_FLAGS,
        extra: Sequence[str] = (),
        also: Sequence[str] = (),
    ) -> Path:
        """Path of the executable built from `name`.c with `flags` + `extra`, linked with
        the programs named in `also` (compiled in the same command)."""
        source = self.source(name)
        others = [self.source(other) for other in also]
        return compile_cached(
            self.compiler, self.compiler_version(), source, [*flags, *extra], self.cache_dir,
            self._built, others,
        )  # fmt: skip


def compile_cached(
    compiler: str,
    version: str,
    source: Path,
    flags: Sequence[str],
    cache_dir: Path,
    built: dict[str, Path],
    others: Sequence[Path] = (),
) -> Path:
    """Build `source` (and `others` with it) once per (contents, flags, compiler version);
    reuse the file after."""
    name = source.stem
    digest = hashlib.sha256()
    for each in (source, *others):
        digest.update(each.read_bytes())
    digest.update("\0".join(flags).encode())
    digest.update(version.encode())
    tag = "" if source.suffix == ".c" else source.suffix.replace(".", "-")
    key = f"{name}{tag}-{digest.hexdigest()[:16]}"
    if key in built:
        return built[key]
    target = cache_dir / key / name
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        # Build beside the target, then rename: concurrent sessions never see half a file.
        fd, tmp = tempfile.mkstemp(prefix=f".{name}-", dir=target.parent)
        os.close(fd)
        cmd = [compiler, *flags, "-o", tmp, str(source), *map(str, others)]
        # rustc writes side files in its working directory: keep them in the cache.
        result = subprocess.run(cmd, capture_output=True, text=True, cwd=target.parent)
        if result.returncode != 0:
            if os.path.exists(tmp):  # gcc removes its output when the link fails
                os.unlink(tmp)
            raise BuildError(f"{' '.join(cmd)} failed:\n{result.stderr}")
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)
    built[key] = target
    return target


def gcc_program(directory: Path, name: str, source: str) -> Path:
    """`source` written to DIRECTORY/NAME.c and built there by gcc, -g -O0 (the test is
    skipped where there is no gcc): the program's path."""
    gcc = shutil.which("gcc")
    if gcc is None:
        import pytest  # (here: bench/ imports this module too)

        pytest.skip("gcc not installed")
    (directory / f"{name}.c").write_text(source)
    subprocess.run([gcc, "-g", "-O0", "-o", str(directory / name), str(directory / f"{name}.c")], check=True)
    return directory / name
