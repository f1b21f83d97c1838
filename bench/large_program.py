"""A large real C program for the start-up benchmarks: CPython, built from Debian's source
package with its own default flags (-g -O3: about 17 MB of DWARF).

The source comes through apt's ordinary client (`apt-get source --download-only`) with a
private deb-src list, so the machine's apt configuration is left as it was. The build is
kept in the temp dir and reused while it exists.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "python3.11"
FUNCTION = "PyList_Append"  # reached early in the interpreter's start
ARGS = ("-c", "pass")
_DEB_SRC = """Types: deb-src
URIs: {uri}
Suites: {suite}
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


def _root() -> Path:
    return Path(tempfile.gettempdir()) / "aliceserver-bench" / "large"


def apt_source(root: Path, package: str = PACKAGE) -> Path:
    """Download a source package into `root`; returns its upstream tarball."""
    existing = sorted(glob.glob(str(root / f"{package}_*.orig.tar.*")))
    if existing:
        return Path(existing[-1])
    uri, suite = _debian_mirror()
    lists = root / "apt-lists"
    parts = root / "apt-sources"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    parts.mkdir(parents=True, exist_ok=True)
    (parts / "deb-src.sources").write_text(_DEB_SRC.format(uri=uri, suite=suite))
    options = [
        "-o", "Dir::Etc::sourcelist=/dev/null",
        "-o", f"Dir::Etc::sourceparts={parts}",
        "-o", f"Dir::State::Lists={lists}",
    ]  # fmt: skip
    subprocess.run(["apt-get", *options, "update", "-qq"], check=True)
    subprocess.run(["apt-get", *options, "source", "--download-only", "-qq", package],
                   cwd=root, check=True)  # fmt: skip
    found = sorted(glob.glob(str(root / f"{package}_*.orig.tar.*")))
    if not found:
        raise RuntimeError(f"apt-get source {package} left no upstream tarball in {root}")
    return Path(found[-1])


def _debian_mirror() -> tuple[str, str]:
    """The URI and suite of the machine's own Debian sources (deb822 or one-line)."""
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        uri = suite = ""
        for line in Path(path).read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "URIs" and not uri:
                uri = value.split()[0]
            elif key.strip() == "Suites" and not suite:
                suite = value.split()[0]
        if uri and suite and "security" not in uri:
            return uri, suite
    for line in Path("/etc/apt/sources.list").read_text().splitlines() if os.path.exists(
        "/etc/apt/sources.list"
    ) else []:
        words = line.split()
        if len(words) >= 3 and words[0] == "deb" and "security" not in words[1]:
            return words[1], words[2]
    raise RuntimeError("no Debian package source configured for apt")


def build() -> Path:
    """The debug build of CPython's interpreter (built once, then reused; its source tree is
    kept beside it, so source lines can be shown)."""
    root = _root()
    stamp = root / "program"
    if stamp.exists() and Path(stamp.read_text()).exists():
        return Path(stamp.read_text())
    for tool in ("apt-get", "gcc", "make"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} not found: the large-program benchmark needs it")
    root.mkdir(parents=True, exist_ok=True)
    tarball = apt_source(root)
    work = root / "build"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    with tarfile.open(tarball) as archive:
        archive.extractall(work, filter="data")
    (source,) = [p for p in work.iterdir() if p.is_dir()]
    print(f"building {source.name} with -g (about a minute on two cores)", flush=True)
    quiet = subprocess.DEVNULL
    subprocess.run(["./configure", "--without-ensurepip"], cwd=source, check=True,
                   stdout=quiet, stderr=quiet)  # fmt: skip
    jobs = str(os.cpu_count() or 2)
    subprocess.run(["make", f"-j{jobs}", "python"], cwd=source, check=True,
                   stdout=quiet, stderr=quiet)  # fmt: skip
    program = source / "python"
    stamp.write_text(str(program))
    return program
