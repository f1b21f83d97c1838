"""`aliceserver cache info|clear [--cache-dir DIR]` (and the CLI's `cache`): what the index
cache holds, or emptying it. Only the cache's own files are counted or removed."""

from __future__ import annotations

import sys
import time

from aliceserver.debuggers.symbols.dwarf.cachedir import (
    ENV_LIMIT,
    CacheDirectory,
    CacheUsage,
    default_directory,
)

_SHOWN = 20  # entries listed by `cache info`, most recently used first


def _megabytes(size: int) -> str:
    return f"{size / (1 << 20):.1f} MB"


def info_text(usage: CacheUsage) -> str:
    files = sum(len(entry.paths) for entry in usage.entries)
    lines = [
        f"cache directory: {usage.directory}",
        f"size: {_megabytes(usage.size)} of at most {_megabytes(usage.limit)} (${ENV_LIMIT} sets it)",
        f"entries: {len(usage.entries)} binaries, {files} files"
        + (f", {usage.partial} being written or left by a writer that died" if usage.partial else ""),
    ]
    for entry in usage.entries[:_SHOWN]:
        used = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.last_used / 1e9))
        lines.append(f"  {entry.key:<44} {_megabytes(entry.size):>10}  used {used}  ({len(entry.paths)} files)")
    if len(usage.entries) > _SHOWN:
        lines.append(f"  ... and {len(usage.entries) - _SHOWN} more")
    return "\n".join(lines) + "\n"


def cache_command(action: str, cache_dir: str | None) -> int:
    """Run `cache info` or `cache clear` on `cache_dir` (None: the default directory)."""
    space = CacheDirectory(cache_dir or default_directory())
    if action == "info":
        sys.stdout.write(info_text(space.usage()))
        return 0
    removed = space.clear()
    files = sum(len(entry.paths) for entry in removed.entries) + removed.partial
    sys.stdout.write(f"removed {files} files ({_megabytes(removed.size)}) from {space.directory}\n")
    return 0
