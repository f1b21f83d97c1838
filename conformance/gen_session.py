"""One MI session of the generated tester: send a plan of checks, record flat answers.

A plan is a list of `Check`s (generated.py makes it); the same plan goes to `gdb -i=mi` and
to `python -m aliceserver -i=mi`, over pipes (tests/support/mi_client.py). Every answer is
flattened into leaves (`path -> text`) so the comparison can name the field that differs:
console commands give `console` (their printed text, `$N` history numbers removed) and
`error`; MI commands give their result record's fields; resuming commands give the frame
of the `*stopped` record they lead to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.gdb import gdb_env
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import PROMPT, GrammarError, List, Record, Tuple, Value, parse_record

# A resuming command waits for its *stopped record; a program never runs long here.
_RESUMING = ("-exec-run", "-exec-continue")
# The child a deeper -var-list-children opens: the first one with children of its own.
FIRST_AGGREGATE_CHILD = "{first-aggregate-child}"


@dataclass(frozen=True)
class Check:
    """One command and what it checks."""

    command: str
    kind: str  # print, ptype, whatis, sizeof, expr, locals, var-create, var-children, stop...
    subject: str = ""  # the kind of variable it inspects (see generated.category)

    @property
    def label(self) -> str:
        return self.command


Answer = dict[str, str]


@dataclass(frozen=True)
class StopPlan:
    """What to ask at the stop of one breakpoint."""

    label: str  # e.g. "f2 end (many-locals)"
    checks: tuple[Check, ...]


@dataclass(frozen=True)
class Plan:
    """The setup commands, then the checks of each stop by breakpoint number; a stop is
    recognised by its bkptno, so one stop missing on one side does not shift the rest."""

    setup: tuple[Check, ...]
    stops: dict[str, StopPlan]


# The answers of a session: "setup" and one section per stop ("bkpt N", "exited-normally"...),
# each a list of answers in plan order; a stop's section starts with its *stopped frame.
@dataclass
class SessionRecord:
    sections: dict[str, list[Answer]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # sections in the order they came
    broke: str = ""  # why the session ended early (a timeout, the server ended)


_HISTORY = re.compile(r"^\$\d+ = ", re.MULTILINE)


def flatten(value: Value, path: str, out: Answer) -> None:
    """Leaves of an MI value; lists of named items (variables) are keyed by name."""
    if isinstance(value, str):
        out[path] = value
        return
    if isinstance(value, Tuple):
        for key, item in value.items:
            if key in ("thread-id", "core", "arch", "fullname") and path.endswith("frame"):
                continue
            flatten(item, f"{path}.{key}" if path else key, out)
        return
    assert isinstance(value, List)
    names = [_name_of(item) for item in value.values]
    keyed = all(names) and len(set(names)) == len(names) and not path.endswith("children")
    for index, item in enumerate(value.values):
        flatten(item, f"{path}[{names[index] if keyed else index}]", out)
    out[f"{path}.length"] = str(len(value.values))


def _name_of(item: Value) -> str:
    if isinstance(item, Tuple):
        name = item.get("name")
        return name if isinstance(name, str) else ""
    return ""


def _stopped_answer(record: Record) -> Answer:
    answer: Answer = {}
    for key in ("reason", "exit-code", "bkptno"):
        value = record.results.get(key)
        if isinstance(value, str):
            answer[key] = value
    frame = record.results.get("frame")
    if isinstance(frame, Tuple):
        flatten(frame, "frame", answer)
    return answer


class Session:
    """Runs a plan in one debugger; the program is built in `binary`'s directory."""

    def __init__(self, binary: Path, gdb: bool) -> None:
        environment = gdb_env()
        environment["PWD"] = str(binary.parent)  # both inferiors see the same environment
        # gdb's front ends (theirs and ours) add LINES and COLUMNS to the program's environment;
        # both unset them, as the harness has always compared stacks without them
        args = ["-q", "-nx", "-iex", "unset environment LINES", "-iex", "unset environment COLUMNS"]
        if gdb:
            # gdb's shell (dash) reorders the environment; uninitialized -O2 values that read
            # the strings at the stack's top would differ by that alone
            args += ["-iex", "set startup-with-shell off"]
        self.client = MiClient([*args, "-i=mi", str(binary)], cwd=binary.parent, gdb=gdb,
                               env=environment)
        self.first_aggregate_child = ""

    def run(self, plan: Plan) -> SessionRecord:
        record = SessionRecord()
        current = "setup"
        try:
            self.client.prompt()
            self._section(record, current, plan.setup)
            resume = Check("-exec-run", "stop")
            for _ in range(len(plan.stops) + 2):
                stopped = self.ask(resume)
                current = f"bkpt {stopped['bkptno']}" if "bkptno" in stopped else stopped.get(
                    "reason", "error")
                record.order.append(current)
                record.sections[current] = [stopped]
                stop = plan.stops.get(stopped.get("bkptno", ""))
                if stop is None:
                    break
                self._section(record, current, stop.checks)
                resume = Check("-exec-continue", "stop")
        except AssertionError as error:  # the client's timeout, or the server ended
            record.broke = f"in {current}: {str(error).splitlines()[0]}"
        finally:
            try:
                self.client.close()
            except OSError:  # the server is gone already: its pipes are broken
                self.client.process.kill()
                self.client.process.wait()
        if record.broke:
            stderr = self.client.stderr.decode(errors="replace").strip().splitlines()
            record.broke += f" ({stderr[-1]})" if stderr else ""
        return record

    def _section(self, record: SessionRecord, name: str, checks: tuple[Check, ...]) -> None:
        answers = record.sections.setdefault(name, [])
        for check in checks:
            answers.append(self.ask(check))

    def ask(self, check: Check) -> Answer:
        command = check.command.replace(FIRST_AGGREGATE_CHILD, self.first_aggregate_child or "none")
        console = not command.startswith("-")
        result, seen = self.client.command(command, token=not console)
        if result.cls == "running" or command.startswith(_RESUMING):
            if result.cls == "error":
                return {"error": _text(result.results.get("msg"))}
            if not any(line.startswith("*stopped") for line in seen):
                seen += self.client.read_until(lambda line: line.startswith("*stopped"))
            return _stopped_answer(parse_record(next(x for x in seen if x.startswith("*stopped"))))
        answer: Answer = {}
        if console:  # one leaf: what it printed, or its error
            printed = _HISTORY.sub("$N = ", "".join(_console_text(seen, command)))
            if result.cls == "error":
                printed += "error: " + _text(result.results.get("msg"))
            return {"console": printed}
        if result.cls == "error":
            answer["error"] = _text(result.results.get("msg"))
        flatten(result.results, "", answer)
        answer.pop("msg", None)
        if check.kind == "var-children":
            self.first_aggregate_child = _first_aggregate(result)
        return answer


def _text(value: Value | None) -> str:
    return value if isinstance(value, str) else ""


def _console_text(lines: list[str], command: str) -> list[str]:
    out = []
    for line in lines:
        if line == PROMPT or not line.startswith("~"):
            continue
        try:
            out.append(parse_record(line).text)
        except GrammarError:
            out.append(line)
    return out


def _first_aggregate(result: Record) -> str:
    children = result.results.get("children")
    if not isinstance(children, List):
        return ""
    for child in children.values:
        if isinstance(child, Tuple) and child.get("numchild") not in (None, "0"):
            name = child.get("name")
            if isinstance(name, str):
                return name
    return ""
