"""Run the same GDB/MI sessions against `gdb -i=mi` and `python -m aliceserver -i=mi`; diff.

A scenario is a program from tests/programs and a list of MI commands (`{marker}` stands
for the line marked `@bp:marker`); both debuggers get the same commands over pipes, with
tokens and `set mi-async on` as Emacs and termdebug send them. For every command each side
records its result record, the `*running`/`*stopped` records up to the stop a resuming
command causes, the `=...` notifications and the console text; the records are normalized
(see `normalize_text`) and compared field by field.

    python -m conformance.mi_diff              # every scenario, a summary table
    python -m conformance.mi_diff -v           # ... and each difference
    python -m conformance.mi_diff -v stack     # only the named scenarios

Each difference is tagged `client` when it is in a field Emacs gdb-mi.el or Vim termdebug
read (CLIENTS.md part 2: frame fullname/line, breakpoint tables, locals, threads, varobjs,
`*stopped` reasons, error messages...) and `other` otherwise (addresses of library ranges,
`core`, console wording...). Exits 1 when a client field differs.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance.mi_scenarios import PROG as PROG  # (importers of mi_diff)
from conformance.mi_scenarios import SCENARIOS as SCENARIOS
from conformance.mi_scenarios import MiScenario as MiScenario
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import PROMPT, GrammarError, List, Record, Tuple, Value, parse_record

ROOT = Path(__file__).resolve().parent.parent

# Norm: a record made comparable: dicts (duplicate keys get "#2"...), lists, strings.
Norm = dict[str, "Norm"] | list["Norm"] | str


AfterStep = Callable[[MiClient, "StepRecord"], None]

# Keys of the records the clients read (CLIENTS.md part 2, section 3).
CLIENT_KEYS = frozenset(
    {
        "class", "msg", "fullname", "value", "level", "func", "line", "addr", "file",
        "id", "target-id", "name", "state", "frame", "threads", "current-thread-id",
        "BreakpointTable", "body", "bkpt", "number", "type", "disp", "enabled", "times",
        "what", "pending", "locations", "stack", "from", "locals", "variables", "args",
        "register-names", "register-values", "changed-registers", "asm_insns", "address",
        "func-name", "offset", "inst", "memory", "data", "next-page", "prev-page",
        "numchild", "has_more", "changelist", "children", "child", "exp", "in_scope",
        "type_changed", "reason", "thread-id", "return-value", "gdb-result-var", "bkptno",
        "exit-code", "depth", "features", "format", "pid", "program-output",
    }
)  # fmt: skip
# Notifications the clients act on (Emacs: threads; termdebug: breakpoints, the pid).
CLIENT_NOTIFY = frozenset(
    {
        "thread-created", "thread-selected", "thread-exited", "breakpoint-created",
        "breakpoint-modified", "breakpoint-deleted", "thread-group-started",
    }
)  # fmt: skip
# Console lines only gdb prints (libthread_db, its own banner); not compared.
_GDB_ONLY_CONSOLE = (
    re.compile(r"^\[Thread debugging using libthread_db enabled\]"),
    re.compile(r"^Using host libthread_db library"),
    re.compile(r"^Warning: 'set target-async', an alias"),
    re.compile(r"^Use 'set mi-async'\.$"),
    re.compile(r"^$"),
)
STEP_TIMEOUT = 60.0


@dataclass
class StepRecord:
    """What one debugger answered to one command."""

    command: str
    result: Norm = ""
    exec_records: list[Norm] = field(default_factory=list)
    notify: dict[str, list[Norm]] = field(default_factory=dict)
    console: list[str] = field(default_factory=list)
    error: str = ""  # the session broke here (timeout, the server ended)


@dataclass(frozen=True)
class Difference:
    scenario: str
    step: int
    command: str
    path: str
    gdb: str
    ours: str
    client: bool  # in a field Emacs or termdebug reads

    def __str__(self) -> str:
        tag = "client" if self.client else "other "
        return (
            f"[{tag}] {self.scenario} #{self.step} {self.command!r} {self.path}: "
            f"gdb {self.gdb!r} ours {self.ours!r}"
        )


@dataclass
class Outcome:
    scenario: MiScenario
    gdb: list[StepRecord] = field(default_factory=list)
    ours: list[StepRecord] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    agreements: int = 0
    seconds: float = 0.0

    @property
    def client_differences(self) -> list[Difference]:
        return [d for d in self.differences if d.client]


# --- normalization ------------------------------------------------------------------------

_HIGH_ADDR = re.compile(r"0x0*7f[0-9a-f]{8,}")  # stack, shared libraries, mmap: layout-dependent
_LWP = re.compile(r"\(LWP \d+\)")
_PROCESS = re.compile(r"process \d+")
_THREAD_ADDR = re.compile(r"Thread 0x[0-9a-f]+")


def normalize_text(text: str, build_dir: str) -> str:
    text = _HIGH_ADDR.sub("<addr>", text)
    text = _LWP.sub("(LWP <pid>)", text)
    text = _PROCESS.sub("process <pid>", text)
    text = _THREAD_ADDR.sub("Thread <addr>", text)
    if build_dir:
        text = text.replace(build_dir, "<build>")
    return text.replace(str(ROOT), "<root>")


_MASKED_KEYS = {"pid": "<pid>", "core": "<core>"}


def normalize(value: Value, build_dir: str, key: str = "") -> Norm:
    if isinstance(value, str):
        masked = _MASKED_KEYS.get(key)
        return masked if masked is not None else normalize_text(value, build_dir)
    if isinstance(value, Tuple):
        out: dict[str, Norm] = {}
        for item_key, item in value.items:
            name, n = item_key, 2
            while name in out:
                name, n = f"{item_key}#{n}", n + 1
            out[name] = normalize(item, build_dir, item_key)
        return out
    assert isinstance(value, List)
    keys = value.keys or []
    return [
        normalize(item, build_dir, keys[i] if i < len(keys) else "")
        for i, item in enumerate(value.values)
    ]


def normalize_record(record: Record, build_dir: str) -> Norm:
    body = normalize(record.results, build_dir)
    assert isinstance(body, dict)
    return {"class": record.cls, **body}


# --- running a session --------------------------------------------------------------------

_RESUMING = re.compile(
    r"^-exec-(run|continue|next|step|finish|until|next-instruction|step-instruction|jump|return)\b"
    r"|^(run|r|continue|c|next|n|step|s|finish|until|advance|jump)\b"
)


def resumes(command: str) -> bool:
    return _RESUMING.match(command) is not None and not command.startswith("-exec-return")


def expand(command: str, program: str) -> str:
    source = ROOT / "tests" / "programs" / f"{program}.c"

    def line_of(match: re.Match[str]) -> str:
        return str(marker_line(source, match.group(1)))

    return re.sub(r"\{([a-z_]+)\}", line_of, command)


def run_session(
    scenario: MiScenario, binary: Path, gdb: bool, after: AfterStep | None = None,
    options: Sequence[str] = (),
) -> tuple[list[StepRecord], list[str]]:
    """Run the scenario's commands; the records of each step and the program's own output
    (`after`: called after each step, its own commands' records not kept; `options`: the
    server's command line options)."""
    args = ["-q", "-nx", "-iex", "set mi-async on", *options, "-i=mi", str(binary)]
    client = MiClient(args, cwd=binary.parent, gdb=gdb)
    build_dir = str(binary.parent)
    steps: list[StepRecord] = []
    output: list[str] = []
    try:
        client.prompt()
        for raw in scenario.commands:
            step = record_step(client, expand(raw, scenario.program), build_dir, output)
            steps.append(step)
            if step.error:
                break
            if after is not None:
                after(client, step)
    finally:
        client.close()
    return steps, output


def record_step(client: MiClient, command: str, build_dir: str, output: list[str]) -> StepRecord:
    """Send one command and file what comes back (the program's own lines into `output`);
    a broken session (timeout, the server ended) is the step's `error`."""
    step = StepRecord(command)
    try:
        lines = _exchange(client, command)
    except AssertionError as error:
        step.error = str(error).splitlines()[0]
        return step
    for line in lines:
        _file(step, line, build_dir, output)
    return step


def _exchange(client: MiClient, command: str) -> list[str]:
    """Send one command (with a token if it is an MI command); every line up to its end."""
    tokened = command.startswith("-")
    result, seen = client.command(command, token=tokened)
    if result.cls == "exit":
        return seen
    if result.cls == "running" or (resumes(command) and result.cls != "error"):
        if not any(line.startswith("*stopped") for line in seen):
            seen += client.read_until(lambda line: line.startswith("*stopped"))
    return seen


def _file(step: StepRecord, line: str, build_dir: str, output: list[str]) -> None:
    if line == PROMPT:
        return
    try:
        record = parse_record(line)
    except GrammarError:
        output.append(line)  # the program's own output (no inferior tty here)
        return
    if record.kind == "result":
        step.result = normalize_record(record, build_dir)
    elif record.kind == "exec":
        step.exec_records.append(normalize_record(record, build_dir))
    elif record.kind == "notify":
        if record.cls == "library-loaded" or record.cls == "library-unloaded":
            # Ranges differ by design (gdb: .text; a mapping elsewhere); compare the names.
            ident = record.results.get("id")
            step.notify.setdefault(record.cls, []).append(
                normalize_text(ident if isinstance(ident, str) else "", build_dir)
            )
            return
        step.notify.setdefault(record.cls, []).append(normalize_record(record, build_dir))
    elif record.kind in ("console", "log"):
        for text in record.text.splitlines():
            if record.kind == "log" and text.strip() == step.command.strip():
                continue  # the echo of a CLI command: compared through the result
            if not any(p.search(text) for p in _GDB_ONLY_CONSOLE):
                step.console.append(normalize_text(text, build_dir))


# --- comparing ----------------------------------------------------------------------------

def compare(path: str, gdb: Norm | None, ours: Norm | None, out: list[tuple[str, str, str]]) -> int:
    """Append (path, gdb, ours) for every difference; the number of agreeing leaves."""
    if isinstance(gdb, dict) and isinstance(ours, dict):
        agree = 0
        for key in list(gdb) + [k for k in ours if k not in gdb]:
            agree += compare(f"{path}.{key}", gdb.get(key), ours.get(key), out)
        return agree
    if isinstance(gdb, list) and isinstance(ours, list):
        agree = 0
        if len(gdb) != len(ours):
            out.append((f"{path}.length", str(len(gdb)), str(len(ours))))
        for index in range(min(len(gdb), len(ours))):
            agree += compare(f"{path}[{index}]", gdb[index], ours[index], out)
        return agree
    if gdb == ours or _same_pie_address(gdb, ours):
        return 1
    out.append((path, _show(gdb), _show(ours)))
    return 0


def compare_steps(gdb: StepRecord, ours: StepRecord, out: list[tuple[str, str, str]]) -> int:
    """Compare what both answered to one command: (path, gdb, ours) for every difference
    appended to `out`; the number of agreeing leaves."""
    if gdb.error or ours.error:
        out.append(("error", gdb.error, ours.error))
    agree = compare("result", gdb.result, ours.result, out)
    agree += compare("exec", list(gdb.exec_records), list(ours.exec_records), out)
    agree += compare(
        "notify",
        {k: list(v) for k, v in gdb.notify.items()},
        {k: list(v) for k, v in ours.notify.items()},
        out,
    )
    return agree + compare("console", list(gdb.console), list(ours.console), out)


PIE_BASE = 0x555555554000  # where Linux maps a PIE executable when ASLR is off (gdb, us)


def _same_pie_address(gdb: Norm | None, ours: Norm | None) -> bool:
    """gdb prints a breakpoint's address before `run` unrelocated (0x1153), an address
    inside the not yet loaded PIE file; after the run it is relocated. Same location."""
    if not (isinstance(gdb, str) and isinstance(ours, str)):
        return False
    if not (gdb.startswith("0x") and ours.startswith("0x")):
        return False
    try:
        return int(ours, 16) - int(gdb, 16) == PIE_BASE and int(gdb, 16) < 0x1000000
    except ValueError:
        return False


def _show(value: Norm | None) -> str:
    if value is None:
        return "<missing>"
    if isinstance(value, str):
        return value
    text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."


# Fields in CLIENT_KEYS that no client reads in the reply to this command.
_NOT_READ = {
    "-file-list-exec-source-file": {"line"},  # Emacs takes only fullname from it
}
# Lists whose length differs by design: gdb shows every register of the CPU's target
# description (ymm*h, k0-7, pkru...); the clients index names by number, so the numbers
# both have must agree, extra ones are not compared.
_OPEN_LISTS = {"register-names", "changed-registers", "register-values"}
# rax..gs, st0-7, the x87 control registers, xmm0-15, mxcsr: numbered alike by every
# x86-64 gdb; what follows depends on the CPU (ymm*h, k0-7, zmm...), fs_base/gs_base too.
GENERAL_REGISTERS = 57


def is_client_path(path: str, command: str = "") -> bool:
    parts = re.split(r"[.\[\]]+", path)
    names = [p.split("#")[0] for p in parts if p and not p.isdigit()]
    if not names:
        return False
    for prefix, keys in _NOT_READ.items():
        if command.startswith(prefix) and _last_key(names) in keys:
            return False
    if names[-1] == "length" and len(names) > 1 and names[-2] in _OPEN_LISTS:
        return False
    index = re.search(r"register-names\[(\d+)\]$", path)
    if index is not None and int(index.group(1)) >= GENERAL_REGISTERS:
        return False
    if names[0] == "notify":
        if len(names) < 2 or names[1] not in CLIENT_NOTIFY:
            return False
        return len(names) == 2 or _last_key(names) in CLIENT_KEYS  # a whole record, or a field
    if names[0] in ("console", "error"):
        return names[0] == "error"
    if names[0] == "program-output":
        return True
    return _last_key(names) in CLIENT_KEYS


def _last_key(names: list[str]) -> str:
    last = names[-1]
    return names[-2] if last == "length" and len(names) > 1 else last


def diff(scenario: MiScenario, builder: Builder, after: AfterStep | None = None,
         our_options: Sequence[str] = ()) -> Outcome:  # fmt: skip
    """`after`, `our_options`: our server's (mi_patched.py: its patches)."""
    start = time.perf_counter()
    binary = builder.build(scenario.program)
    outcome = Outcome(scenario)
    outcome.gdb, gdb_output = run_session(scenario, binary, gdb=True)
    outcome.ours, our_output = run_session(scenario, binary, gdb=False, after=after, options=our_options)
    for index in range(max(len(outcome.gdb), len(outcome.ours))):
        theirs = outcome.gdb[index] if index < len(outcome.gdb) else None
        mine = outcome.ours[index] if index < len(outcome.ours) else None
        command = (theirs or mine or StepRecord("?")).command
        found: list[tuple[str, str, str]] = []
        if theirs is None or mine is None:
            found.append(("error", "<no step>" if theirs is None else "", "<no step>" if mine is None else ""))
        else:
            outcome.agreements += compare_steps(theirs, mine, found)
        for path, gdb_text, our_text in found:
            outcome.differences.append(
                Difference(scenario.name, index + 1, command, path, gdb_text, our_text,
                           is_client_path(path, command))
            )
    if sorted(gdb_output) != sorted(our_output):
        outcome.differences.append(
            Difference(scenario.name, 0, "(whole run)", "program-output",
                       "\\n".join(gdb_output), "\\n".join(our_output), True)
        )
    else:
        outcome.agreements += 1
    outcome.seconds = time.perf_counter() - start
    return outcome


def by_name(names: Sequence[str]) -> list[MiScenario]:
    known = {s.name: s for s in SCENARIOS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown scenarios: {', '.join(unknown)} (known: {', '.join(known)})")
    return [known[n] for n in names]


def main(argv: Sequence[str] | None = None) -> int:
    from conformance.mi_cli import main as run  # the table and the modes

    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
