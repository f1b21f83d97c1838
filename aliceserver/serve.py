"""Running a front end from the command line: logging, stdio or a TCP listener."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import logging
import os
import signal
import sys
import threading

from aliceserver.engines import debugger_factory, ptrace_debugger  # noqa: F401 - tests take it from here
from aliceserver.transports.framed import FramedTransport

log = logging.getLogger(__name__)


def configure_logging(log_file: str | None, level: str) -> None:
    """The log goes to a file or to stderr, never to stdout (the protocol's stream)."""
    handler: logging.Handler
    handler = logging.FileHandler(log_file) if log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s")
    )
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)


def serve_dap(options: argparse.Namespace) -> int:
    from aliceserver.adapters.dap import DapServerConfig, build_dap_server

    configure_logging(options.log_file, options.log_level)
    server = build_dap_server(DapServerConfig(debugger_factory=debugger_factory(options.cache_dir)))
    if options.port is None:
        stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
        # Anything printed by mistake must not corrupt the protocol stream.
        sys.stdout = sys.stderr

        session = server.session(FramedTransport(stdin, stdout))

        def finish() -> None:
            session.shutdown()  # kills a launched program, detaches an attached one
            os._exit(0)  # the reader may still be blocked reading stdin

        def stop_stdio(signo: int, _frame: object) -> None:
            # The cleanup runs in a thread of its own: an exception thrown into whatever
            # the reader was doing could leave a lock held and the cleanup waiting on it.
            threading.Thread(target=finish, name="aliceserver-stop", daemon=True).start()

        for signo in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signo, stop_stdio)
        session.run()
        return 0
    try:
        listener = server.listen(options.host, options.port)
    except OSError as error:
        print(
            f"aliceserver: cannot listen on {options.host}:{options.port}: {error}", file=sys.stderr
        )
        return 1
    host, port = listener.address
    if not ipaddress.ip_address(host.split("%")[0]).is_loopback:
        print(
            f"aliceserver: WARNING: listening on {host}, reachable from other machines; anyone "
            "who connects can run programs as this user",
            file=sys.stderr,
        )
    print(f"aliceserver: DAP server listening on {host}:{port}", file=sys.stderr, flush=True)

    closers: list[threading.Thread] = []

    def stop(signo: int, _frame: object) -> None:
        # close() waits for the accept loop, which runs in this (the main) thread: aside.
        closer = threading.Thread(target=listener.close, daemon=True)
        closers.append(closer)
        closer.start()

    for signo in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signo, stop)
    with contextlib.suppress(KeyboardInterrupt):
        listener.serve_forever()
    for closer in closers:
        closer.join()
    listener.close()
    return 0
