"""The on-disk cache of per-binary location indexes.

One file per binary under `$XDG_CACHE_HOME/aliceserver/index/` (mode 0700), named by build
id (or a hash of path, mtime and size). The payload is a pickle of plain containers only
(tuples, lists, dicts, str, int, bytes): the unpickler refuses every class, so a tampered
file cannot run code. A file that does not load or does not match the binary is ignored
and rewritten; the cache never makes a load fail.
"""

from __future__ import annotations

import io
import logging
import os
import pickle
from collections.abc import Hashable
from typing import Any

log = logging.getLogger(__name__)

# 2: answers found later (inlined copies) in a second file; 3: LTO copies; 4: the symbol
# table's address index; 5: legacy Rust names with `..` in their path demangled; 6: the
# symbol table's `name@got.plt` slots
FORMAT_VERSION = 6
_MAGIC = b"ALICEIDX"


def read_cache_file(path: str, what: str) -> bytes | None:
    """A cache file's bytes; None when it is absent or unreadable (logged: it is rebuilt)."""
    try:
        with open(path, "rb") as stream:
            return stream.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.info("cannot read %s %s: %s", what, path, exc)
        return None


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing {module}.{name} in an index cache file")


def default_directory() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "aliceserver", "index")


class IndexCache:
    """Stores and fetches index payloads; safe to share between threads and processes
    (files are replaced atomically)."""

    def __init__(self, directory: str | None = None) -> None:
        self.directory = directory if directory is not None else default_directory()

    @staticmethod
    def key_for(build_id: str | None, path: str, mtime_ns: int, size: int) -> str:
        """The cache key of a binary: its build id, else a hash of where and what it is."""
        if build_id:
            return "b-" + build_id.lower()
        import hashlib  # here: most binaries have a build id, and OpenSSL takes a while to load

        digest = hashlib.sha256(f"{os.path.realpath(path)}\0{mtime_ns}\0{size}".encode())
        return "p-" + digest.hexdigest()[:40]

    @property
    def rows_directory(self) -> str:
        """Where decoded line rows are kept (rowcache.py)."""
        return os.path.join(self.directory, "rows")

    def path_for(self, key: str) -> str:
        safe = "".join(c for c in key if c.isalnum() or c in "-_")
        return os.path.join(self.directory, f"{safe}.v{FORMAT_VERSION}.idx")

    def load(self, key: str, identity: Hashable) -> dict[str, Any] | None:
        """The payload stored for `key` if it was stored with `identity`, else None."""
        path = self.path_for(key)
        data = read_cache_file(path, "index cache")
        if data is None:
            return None
        header = _MAGIC + FORMAT_VERSION.to_bytes(4, "little")
        if not data.startswith(header):
            log.info("ignoring index cache %s: wrong format", path)
            return None
        try:
            payload = _PlainUnpickler(io.BytesIO(data[len(header) :])).load()
        except Exception as exc:  # noqa: BLE001 - any damage means "not cached"
            log.info("ignoring damaged index cache %s: %s", path, exc)
            return None
        if not isinstance(payload, dict) or payload.get("identity") != identity:
            log.debug("index cache %s is for another build", path)
            return None
        return payload

    def store(self, key: str, identity: Hashable, payload: dict[str, Any]) -> None:
        """Write `payload` for `key` (best effort: failures are logged, not raised)."""
        import tempfile  # here: a warm start only reads (tempfile imports random, shutil)

        path = self.path_for(key)
        try:
            _ensure_private_directory(self.directory)
            body = pickle.dumps({**payload, "identity": identity}, protocol=5)
            fd, partial = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".idx")
            try:
                with os.fdopen(fd, "wb") as stream:
                    stream.write(_MAGIC + FORMAT_VERSION.to_bytes(4, "little"))
                    stream.write(body)
                os.replace(partial, path)
            except BaseException:
                os.unlink(partial)
                raise
        except (OSError, pickle.PicklingError) as exc:
            log.info("cannot write index cache %s: %s", path, exc)


def _ensure_private_directory(directory: str) -> None:
    os.makedirs(directory, mode=0o700, exist_ok=True)
    if os.stat(directory).st_mode & 0o777 != 0o700:
        os.chmod(directory, 0o700)  # makedirs' mode is filtered by the umask
