"""The on-disk cache of per-binary location indexes.

One file per binary under the cache directory (cachedir.py: `--cache-dir`,
$ALICESERVER_CACHE_DIR, else `$XDG_CACHE_HOME/aliceserver/index/`; mode 0700), named by
build id (or a hash of path, mtime and size). The payload is a pickle of plain containers
only (tuples, lists, dicts, str, int, bytes) behind a header with its length and CRC-32:
the unpickler refuses every class, so a tampered file cannot run code. A file that is
short, damaged, of another format or of another build is ignored and rewritten; a
directory that cannot be written (read-only, full disk) is read but no longer written for
the session. Either is logged once as a warning; the cache never makes a load fail, and
never changes an answer.
"""

from __future__ import annotations

# pickle's accelerator, whose classes and functions pickle.py re-exports: pickle.py itself
# (its Python pickler and tables) is not needed: 0.5-1.4 ms of CPU a start
import _pickle as pickle
import io
import logging
import os
import zlib
from collections.abc import Hashable
from typing import IO, Any

from aliceserver.debuggers.symbols.dwarf import cachedir
from aliceserver.debuggers.symbols.dwarf.cacheformat import FORMAT_VERSION

log = logging.getLogger(__name__)

_MAGIC = b"ALICEIDX"
_HEADER = len(_MAGIC) + 4 + 8 + 4  # magic, version, payload length, payload CRC-32


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


def plain_unpickler(stream: IO[bytes]) -> pickle.Unpickler:
    """An unpickler of plain containers only, as for the cache files themselves."""
    return _PlainUnpickler(stream)


default_directory = cachedir.default_directory


class IndexCache:
    """Stores and fetches index payloads; safe to share between threads and processes
    (files are replaced atomically). One per debugger session: it warns once per kind of
    trouble and stops writing once the directory refused a write."""

    def __init__(self, directory: str | None = None, limit: int | None = None,
                 sweep_every: float = cachedir.SWEEP_EVERY) -> None:  # fmt: skip
        self.directory = directory if directory is not None else default_directory()
        self.space = cachedir.CacheDirectory(self.directory, limit, sweep_every)
        self.writable = True  # False after a write failed: the session goes on without
        self._warned: set[str] = set()

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

    def warn_once(self, kind: str, message: str) -> None:
        """Log `message` as a warning the first time this kind of trouble is met."""
        if kind in self._warned:
            log.info("%s", message)
        else:
            self._warned.add(kind)
            log.warning("%s", message)

    def damaged(self, path: str, why: str) -> None:
        self.warn_once("damaged", f"ignoring the cache file {path} ({why}); rebuilding it")

    def write_failed(self, path: str, exc: BaseException) -> None:
        """A write was refused: warned once, and no more writes this session."""
        self.writable = False
        self.warn_once("write", f"cannot write the cache file {path} ({exc}); going on "
                                "without storing what is built")  # fmt: skip

    def written(self, path: str, size: int) -> None:
        """`size` bytes were written at `path`: the directory is swept if due."""
        self.space.note_written(path, size)

    def load(self, key: str, identity: Hashable) -> dict[str, Any] | None:
        """The payload stored for `key` if it was stored with `identity`, else None."""
        path = self.path_for(key)
        data = read_cache_file(path, "index cache")
        if data is None:
            return None
        payload = self._decode(path, data)
        if payload is None:
            return None
        if payload.get("identity") != identity:
            log.debug("index cache %s is for another build", path)
            return None
        try:
            os.utime(path)  # read lately: evicted last
        except OSError:
            pass
        return payload

    def _decode(self, path: str, data: bytes) -> dict[str, Any] | None:
        if not data.startswith(_MAGIC) or len(data) < _HEADER:
            self.damaged(path, "not an index cache file" if data else "empty")
            return None
        version = int.from_bytes(data[8:12], "little")
        if version != FORMAT_VERSION:
            self.damaged(path, f"format version {version}, not {FORMAT_VERSION}")
            return None
        length, crc = int.from_bytes(data[12:20], "little"), int.from_bytes(data[20:24], "little")
        body = memoryview(data)[_HEADER:]
        if len(body) != length or zlib.crc32(body) != crc:
            self.damaged(path, "truncated" if len(body) < length else "damaged")
            return None
        try:
            payload = _PlainUnpickler(io.BytesIO(body)).load()
        except Exception as exc:  # noqa: BLE001 - any damage means "not cached"
            self.damaged(path, f"unreadable: {exc}")
            return None
        if not isinstance(payload, dict):
            self.damaged(path, "not an index")
            return None
        return payload

    def partial_file(self) -> tuple[int, str]:
        """A new file of the directory (made, private, where missing) for a write to come,
        renamed into place once whole: (its descriptor, its path)."""
        _ensure_private_directory(self.directory)
        return _partial_file(self.directory)

    def store(self, key: str, identity: Hashable, payload: dict[str, Any]) -> None:
        """Write `payload` for `key` (best effort: failures are logged, not raised)."""
        path = self.path_for(key)
        if not self.writable:
            return
        try:
            body = pickle.dumps({**payload, "identity": identity}, protocol=5)
        except pickle.PicklingError as exc:
            log.info("cannot write index cache %s: %s", path, exc)
            return
        try:
            fd, partial = self.partial_file()
            try:
                with os.fdopen(fd, "wb") as stream:
                    stream.write(_MAGIC + FORMAT_VERSION.to_bytes(4, "little")
                                 + len(body).to_bytes(8, "little")
                                 + zlib.crc32(body).to_bytes(4, "little"))  # fmt: skip
                    stream.write(body)
                os.replace(partial, path)  # whole or not at all, whoever else writes it
            except BaseException:
                os.unlink(partial)
                raise
        except OSError as exc:
            self.write_failed(path, exc)
            return
        self.written(path, _HEADER + len(body))


def _partial_file(directory: str) -> tuple[int, str]:
    """A new file of a random name for a write to come, as tempfile.mkstemp makes one
    (whose import, of random and shutil, took 5-7 ms of a cold start's first store)."""
    for _attempt in range(100):
        path = os.path.join(directory, f".tmp-{os.urandom(6).hex()}.idx")
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no new temporary file name in {directory}")


def _ensure_private_directory(directory: str) -> None:
    os.makedirs(directory, mode=0o700, exist_ok=True)
    if os.stat(directory).st_mode & 0o777 != 0o700:
        os.chmod(directory, 0o700)  # makedirs' mode is filtered by the umask
