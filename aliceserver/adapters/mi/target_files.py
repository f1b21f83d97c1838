"""Files copied to and from a stub's machine (remote.c): `-target-file-get REMOTE LOCAL`,
`-target-file-put LOCAL REMOTE`, `-target-file-delete REMOTE` and the console's
`remote get|put|delete`, which say what they did ("Successfully fetched file ..."); the
native target has no other machine ("command can only be used with remote target")."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import ExitStack
from typing import BinaryIO

from aliceserver.adapters.mi.buildargv import build_argv
from aliceserver.adapters.mi.output import stream
from aliceserver.adapters.mi.parser import getopt
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, MiRegistry, Reply
from aliceserver.debuggers.stubservices import StubServices, stub_services
from aliceserver.errors import AliceError

_SUBCOMMANDS = (("delete", "Delete a remote file."), ("get", "Copy a remote file to the local system."),
                ("put", "Copy a local file to the remote system."))  # fmt: skip


def _services(ctx: Context) -> StubServices:
    services = stub_services(ctx.session.debugger)
    if services is None:
        raise MiError("command can only be used with remote target")
    return services


def _local_error(path: str, error: OSError) -> MiError:
    """gdb's perror_with_name."""
    return MiError(f"{path}: {error.strerror}.")


def get(ctx: Context, remote: str, local: str) -> None:
    """remote_file_get: the local file is made once the remote one is open, and what was
    read stays in it when the transfer fails."""
    services = _services(ctx)
    with ExitStack() as stack:
        out: list[BinaryIO] = []

        def opened() -> None:
            try:
                out.append(stack.enter_context(open(local, "wb")))
            except OSError as error:
                raise _local_error(local, error) from None

        def write(data: bytes) -> None:
            try:
                out[0].write(data)
            except OSError as error:
                raise _local_error(local, error) from None

        try:
            services.read_file(remote, opened, write)
        except AliceError as error:
            raise MiError(str(error)) from None


def put(ctx: Context, local: str, remote: str) -> None:
    """remote_file_put: the local file is opened first (a directory opens: reading it is
    the error), then the remote one made, then the bytes sent."""
    services = _services(ctx)
    try:
        fd = os.open(local, os.O_RDONLY)
    except OSError as error:
        raise _local_error(local, error) from None

    def read(count: int) -> bytes:
        try:
            return os.read(fd, count)
        except OSError:
            raise MiError(f"Error reading {local}.") from None

    try:
        services.write_file(remote, read)
    except AliceError as error:
        raise MiError(str(error)) from None
    finally:
        os.close(fd)


def delete(ctx: Context, remote: str) -> None:
    try:
        _services(ctx).delete_file(remote)
    except AliceError as error:
        raise MiError(str(error)) from None


def _mi(name: str, usage: str, count: int, run: Callable[..., None]) -> Callable[[Context, list[str]], Reply]:
    def handler(ctx: Context, args: list[str]) -> Reply:
        rest = getopt(name, args).rest
        if len(rest) != count:
            raise MiError(f"-{name}: Usage: {usage}")
        run(ctx, *rest)
        return None

    return handler


def _help(ctx: Context) -> None:
    """A prefix command alone: its subcommands, in the pieces gdb writes them (on MI each
    piece is one console record)."""
    pieces = ["List of remote subcommands:\n\n", *(f"remote {name} -- {doc}\n" for name, doc in _SUBCOMMANDS),
              '\nType "help', ' remote" followed by remote subcommand name for full documentation.\n',
              'Type "apropos word" to search for commands related to "word".\n',
              'Type "apropos -v word" for full documentation of commands related to "word".\n',
              "Command name abbreviations are allowed if unambiguous.\n"]  # fmt: skip
    if ctx.ui.is_mi:
        for piece in pieces:
            ctx.ui.line(stream("~", piece))
    else:
        ctx.console("".join(pieces))


def _remote(ctx: Context, text: str) -> Reply:
    """`remote get|put|delete ...`; bare, the list of its subcommands."""
    word, _, rest = text.strip().partition(" ")
    if not word:
        _help(ctx)
        return None
    name = next((name for name, _ in _SUBCOMMANDS if name.startswith(word)), None)
    if name is None:
        raise MiError(f'Undefined remote command: "{word}".  Try "help remote".')
    if not rest.strip():
        raise MiError(f"Argument required (file to {name}).")
    words = build_argv(rest)
    if len(words) != (1 if name == "delete" else 2):
        raise MiError(f"Invalid parameters to remote {name}")
    if name == "get":
        get(ctx, *words)
        done = f'Successfully fetched file "{words[0]}".'
    elif name == "put":
        put(ctx, *words)
        done = f'Successfully sent file "{words[0]}".'
    else:
        delete(ctx, words[0])
        done = f'Successfully deleted file "{words[0]}".'
    if ctx.from_tty:
        ctx.console(done + "\n")
    return None


def register(registry: MiRegistry) -> None:
    registry.add("target-file-get", _mi("target-file-get", "REMOTE_FILE LOCAL_FILE", 2, get))
    registry.add("target-file-put", _mi("target-file-put", "LOCAL_FILE REMOTE_FILE", 2, put))
    registry.add("target-file-delete", _mi("target-file-delete", "REMOTE_FILE", 1, delete))


def register_console(registry: CliRegistry) -> None:
    registry.add("remote", _remote)
