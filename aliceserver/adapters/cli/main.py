"""`aliceserver cli ...` / `aliceserver-cli ...`: one command, one request to the daemon.

Exit status: 0 done, 1 the tool reported an error (code and hint on stderr), 2 a usage
error, 3 no daemon could be reached or started.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from aliceserver.adapters.cli.client import Client, DaemonError
from aliceserver.adapters.cli.commands import Plan, UsageError, build_parser, plan_for
from aliceserver.adapters.cli.paths import UnsafePath, prepare
from aliceserver.startup import undo_locale_coercion

FOLLOW_WAIT = 1.0  # seconds one `output --follow` request waits for news


def _print(text: str) -> None:
    if text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()


def _entries_text(entries: list[dict[str, Any]], events: bool) -> tuple[str, bool]:
    """The program output (and, with `events`, the other events as `-- ...` lines); whether
    the program exited."""
    parts: list[str] = []
    exited = False
    for entry in entries:
        kind, text = entry.get("kind"), str(entry.get("text", ""))
        exited = exited or kind == "exited"
        if kind in ("stdout", "stderr", "console"):
            parts.append(text)
        elif events:
            if parts and not parts[-1].endswith("\n"):
                parts.append("\n")
            parts.append(f"-- {entry.get('session')}: {text}\n")
    return "".join(parts), exited


def _output(client: Client, options: Any, as_json: bool) -> int:
    request: dict[str, Any] = {"op": "output", "session": options.session}
    if options.clear:
        request["clear"] = True
    elif options.tail is not None:
        request["tail"] = options.tail
    reply = client.request(request)
    assert reply is not None
    if as_json and not options.follow:
        print(json.dumps(reply, indent=2))
        return 0
    if "text" in reply:
        _print(str(reply["text"]))
    elif options.clear:
        print(f"cleared {reply.get('cleared', 0)} buffered events", file=sys.stderr)
        return 0
    exited = False
    while True:
        if reply.get("dropped"):
            print(f"({reply['dropped']} earlier events were dropped: the daemon keeps the last "
                  "10,000 / 10 MB)", file=sys.stderr)  # fmt: skip
        text, ended = _entries_text(list(reply.get("entries", [])), options.events)
        exited = exited or ended
        if as_json:
            for entry in reply.get("entries", []):
                print(json.dumps(entry), flush=True)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
        if not options.follow or exited:
            return 0
        cursor = reply.get("cursor", 0)
        reply = client.request({"op": "output", "session": options.session, "after": cursor,
                                "wait": FOLLOW_WAIT})  # fmt: skip
        assert reply is not None


def _status(client: Client, as_json: bool) -> int:
    reply = client.request({"op": "status"}, start=False)
    if reply is None:
        print("no daemon running (the next command starts one)")
        return 0
    if as_json:
        print(json.dumps(reply, indent=2))
        return 0
    idle = reply.get("idle_timeout")
    events = reply.get("events", {})
    up = time.time() - float(reply.get("started", time.time()))
    print(f"daemon pid {reply.get('pid')} in {reply.get('directory')}, up {up:.0f} s, exits after "
          f"{idle:g} s idle")  # fmt: skip
    print(f"events buffered: {events.get('buffered', 0)} ({events.get('bytes', 0)} bytes), "
          f"dropped: {events.get('dropped', 0)}")  # fmt: skip
    sessions = reply.get("sessions", [])
    for entry in sessions:
        mark = "*" if entry.get("id") == reply.get("current_session") else " "
        extra = entry.get("exit") or entry.get("stop") or ""
        print(f"{mark} {entry['id']}: {entry['state']} {extra} pid {entry['pid']} {entry['program']}".rstrip())
    if not sessions:
        print("no sessions")
    return 0


def run(argv: list[str]) -> int:
    parser = build_parser()
    options = parser.parse_args(argv)
    try:
        plan: Plan = plan_for(options)
    except UsageError as error:
        parser.error(str(error))
    if plan.op == "cache":  # the files only: no daemon needed
        from aliceserver.cache_command import cache_command

        return cache_command(options.action, options.cache_dir)
    try:
        client = Client(prepare(options.dir), idle_timeout=options.idle_timeout,
                        cache_dir=options.cache_dir)  # fmt: skip
        if plan.op == "status":
            return _status(client, options.json)
        if plan.op == "output":
            return _output(client, options, options.json)
        if plan.op == "shutdown":
            reply = client.request({"op": "shutdown"}, start=False)
            print("daemon stopped" if reply is not None else "no daemon running")
            return 0
        reply = client.request({"op": "call", "tool": plan.tool, "arguments": plan.arguments})
    except (DaemonError, UnsafePath) as error:
        print(f"aliceserver-cli: {error}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    assert reply is not None
    if not reply.get("ok"):
        print(f"aliceserver-cli: {reply.get('message')}", file=sys.stderr)
        return 3
    is_error = bool(reply.get("is_error"))
    if options.json:
        print(json.dumps(reply.get("data"), indent=2))
    elif is_error:
        print(reply.get("text", ""), file=sys.stderr)
    else:
        _print(str(reply.get("text", "")))
    return 1 if is_error else 0


def main(argv: list[str] | None = None) -> int:
    undo_locale_coercion()  # its daemon and the programs it runs see the user's environment
    return run(sys.argv[1:] if argv is None else list(argv))


if __name__ == "__main__":
    sys.exit(main())
