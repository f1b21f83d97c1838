"""The daemon directory and socket: where they are, and that anything not private to this
user is refused."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from aliceserver.adapters.cli.paths import (
    DIR_ENV,
    UnsafePath,
    check_socket,
    default_directory,
    prepare,
)


def test_the_override_then_a_private_runtime_dir_then_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DIR_ENV, str(tmp_path / "mine"))
    assert default_directory() == str(tmp_path / "mine")
    monkeypatch.delenv(DIR_ENV)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    os.chmod(runtime, 0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert default_directory() == str(runtime / "aliceserver")
    os.chmod(runtime, 0o755)  # not private: not used
    assert default_directory().endswith(f"aliceserver-{os.geteuid()}")
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert default_directory().endswith(f"aliceserver-{os.geteuid()}")


def test_prepare_creates_a_0700_directory_and_refuses_looser_ones(tmp_path: Path) -> None:
    paths = prepare(str(tmp_path / "d"))
    assert os.stat(paths.directory).st_mode & 0o777 == 0o700
    os.chmod(paths.directory, 0o750)
    with pytest.raises(UnsafePath, match="must be 0700"):
        prepare(paths.directory)
    link = tmp_path / "link"
    os.chmod(paths.directory, 0o700)
    link.symlink_to(paths.directory)
    with pytest.raises(UnsafePath, match="not a directory"):
        prepare(str(link))
    with pytest.raises(UnsafePath, match="too long"):
        prepare(str(tmp_path / ("x" * 120)))


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_a_directory_of_another_user_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir(mode=0o700)
    os.chown(other, 12345, -1)
    with pytest.raises(UnsafePath, match="belongs to uid 12345"):
        prepare(str(other))


def test_check_socket_wants_a_0600_socket(tmp_path: Path) -> None:
    path = str(prepare(str(tmp_path / "s")).socket)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(path)
        os.chmod(path, 0o600)
        check_socket(path)
        os.chmod(path, 0o666)
        with pytest.raises(UnsafePath, match="must be 0600"):
            check_socket(path)
    finally:
        listener.close()
    os.unlink(path)
    Path(path).write_text("")
    with pytest.raises(UnsafePath, match="not a socket"):
        check_socket(path)
