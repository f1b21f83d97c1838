"""Library values through the same pretty printers, in MI against gdb 13 and in DAP against
lldb-vscode-16; every difference is fixed or explained.

Two programs hold one variable per library type, filled and empty, and nested containers:
tests/programs/cpp_printers.cpp (libstdc++, whose printers gdb auto-loads) and
tests/programs/rust_printers.rs (Rust std, with the printers the toolchain ships in
`lib/rustlib/etc`, given to gdb as rust-gdb gives them). Each program is debugged once by
each side, stopped at its `@bp:main` line.

MI: `gdb -i=mi` and `python -m aliceserver -i=mi` get the same commands in lockstep:
`-enable-pretty-printing`, then per variable `-data-evaluate-expression`, `-var-create`,
`-var-list-children --all-values` of a range (1 3) and of every child, the same one level
deeper for the first child that has children (as gdb names it), console `print` and
`print/r`; and `-stack-list-variables --all-values`. Every field is compared (value,
numchild, dynamic, displayhint, has_more, child names, exp, type, value, console text),
after mi_diff's normalization (stack addresses, the build directory); our progress lines
of a first load (`Loading debug info of ...`) are left out.

DAP (conformance/printers_dap.py): each variable's children in the Locals scope, their
number and values. For C++ against lldb-vscode-16, which has its own libstdc++ formatters
(summaries differ from gdb's, so children are compared, not summary lines); for both
languages against gdb's own children of the same printers (the MI run above), since
lldb-vscode-16 has no Rust formatters (rust-lldb's are not loaded by lldb-vscode): it
shows a Rust `Vec` as `buf`/`len` members, nothing to compare a printer's elements with.

    python -m conformance.printers_diff           # a summary table
    python -m conformance.printers_diff -v        # and every difference
    python -m conformance.printers_diff --only mi # one protocol

Exits 1 on a difference that neither `DELIBERATE` nor `KNOWN_BUGS` explains; an entry of
either table that no longer occurs in a full run is reported, so the tables stay true.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from conformance.explained import Explained, explained_by, stale, unexplained
from conformance.mi_diff import ROOT, StepRecord, compare_steps, record_step
from tests.support.build import PROGRAMS_DIR, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx, find_rustc
from tests.support.gdb import gdb_env, gdb_path
from tests.support.mi_client import MiClient


@dataclass(frozen=True)
class Subject:
    variable: str
    type: str  # the library type it stands for


@dataclass(frozen=True)
class PrintersProgram:
    language: str  # "c++" or "rust"
    stem: str  # tests/programs/STEM.cpp or .rs
    subjects: tuple[Subject, ...]

    @property
    def source(self) -> Path:
        return PROGRAMS_DIR / f"{self.stem}.{'cpp' if self.language == 'c++' else 'rs'}"

    @property
    def location(self) -> str:
        return f"{self.source.name}:{marker_line(self.source, 'main')}"


def _subjects(pairs: str) -> tuple[Subject, ...]:
    """`variable=type; ...` as subjects."""
    found = []
    for pair in pairs.split(";"):
        variable, _, kind = pair.strip().partition("=")
        found.append(Subject(variable.strip(), kind.strip()))
    return tuple(found)


CPP = PrintersProgram("c++", "cpp_printers", _subjects(
    "vi=vector<int>; vs=vector<string>; vp=vector<struct>; vb=vector<bool>; empty=vector (empty);"
    "big=vector of 250; vvi=vector<vector<int>>; str=string; long_str=string of 300;"
    "empty_str=string (empty); sv=string_view; arr=array; dq=deque; empty_dq=deque (empty);"
    "lst=list; empty_lst=list (empty); fl=forward_list; empty_fl=forward_list (empty); m=map;"
    "empty_map=map (empty); msv=map<string, vector<int>>; nested=map<int, vector<int>>;"
    "mm=multimap; st=set; empty_set=set (empty); um=unordered_map;"
    "empty_um=unordered_map (empty); us=unordered_set; empty_us=unordered_set (empty);"
    "up=unique_ptr; upnull=unique_ptr (null); sp=shared_ptr; empty_sp=shared_ptr (empty);"
    "wp=weak_ptr; opt=optional; none=optional (empty); var=variant (string);"
    "var_int=variant (int); tup=tuple; pr=pair; spn=span; bits=bitset; at=atomic;"
    "holder=struct of vector and string"))
RUST = PrintersProgram("rust", "rust_printers", _subjects(
    "vi=Vec<i32>; vs=Vec<String>; vp=Vec<struct>; empty_vec=Vec (empty); string=String;"
    "empty_string=String (empty); text=&str; slice=&[i32]; mut_slice=&mut [i32]; array=array of 4 i32;"
    "some=Option (Some); none=Option (None); some_string=Option<String>; ok=Result (Ok);"
    "err=Result (Err); boxed=Box<i32>; boxed_point=Box<struct>; rc=Rc; weak=Weak; arc=Arc;"
    "cell=Cell; refcell=RefCell; guard=Ref; hm=HashMap; empty_map=HashMap (empty); hs=HashSet;"
    "bm=BTreeMap; bs=BTreeSet; dq=VecDeque; nested=Vec<Option<String>>;"
    "map_vec=HashMap<String, Vec<i32>>; holder=struct of String, Vec, BTreeMap; pair=tuple"))
PROGRAMS = (CPP, RUST)


@dataclass(frozen=True)
class Difference:
    """One field that differs. `gdb` is the oracle's text: gdb's, or lldb-vscode's where
    `protocol` is `dap-lldb`."""

    protocol: str  # "mi", "dap-lldb" (ours against lldb-vscode), "dap-gdb" (against gdb's children)
    language: str
    variable: str
    type: str
    check: str  # eval, var-create, range, children, deeper, print, print/r, locals, children...
    command: str
    path: str
    gdb: str
    ours: str
    opt: str = ""  # no optimization levels here: every program is built at -O0

    @property
    def subject(self) -> str:
        return f"{self.language} {self.type}"

    @property
    def kind(self) -> str:
        path = re.sub(r"\[\d+\]", "[]", self.path)
        return f"{self.protocol} {self.check} {path}"

    def __str__(self) -> str:
        gdb, ours = _around_first_difference(self.gdb, self.ours)
        return (f"{self.protocol} {self.language} {self.variable} ({self.type}) {self.command!r} "
                f"{self.path}: {'lldb' if self.protocol == 'dap-lldb' else 'gdb'} "
                f"{gdb!r} ours {ours!r}")


def _around_first_difference(a: str, b: str, limit: int = 160) -> tuple[str, str]:
    """Long texts cut to where they start to differ."""
    if len(a) <= limit and len(b) <= limit:
        return a, b
    start = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                 min(len(a), len(b)))
    start = max(0, start - limit // 4)
    prefix = "..." if start else ""
    return prefix + a[start:start + limit], prefix + b[start:start + limit]


_RANDOM_STATE = r"k0: \d+, k1: \d+"

# Differences by design: each says why it stays.
DELIBERATE: tuple[Explained, ...] = (
    Explained(
        "A Rust HashMap's RandomState keys (in print/r) are random in each process: compared "
        "without them", r"^mi print/r ", subject=r"^rust Hash",
        rewrite=lambda text: re.sub(_RANDOM_STATE, "", text), gdb_drops=_RANDOM_STATE),
    Explained(
        "gdb's MI groups a C++ class's members under public/private/protected children (its "
        "var objects); DAP lists the members themselves, as lldb-vscode-16 does",
        r"^dap-gdb children ", subject=r"^c\+\+ (array|struct of vector and string)$"),
    Explained(
        "Our DAP names a pointer's target `*` (the engine's child name, shown under the "
        "pointer); gdb's MI names it after the pointer (`*boxed`)",
        r"^dap-gdb children children\[\]\.name$", gdb=r"^\*\w", ours=r"^\*$"),
    Explained(
        "A string's value is its text: lldb-vscode-16 also lists its members (_M_dataplus, "
        "_M_string_length... or string_view's _M_len, _M_str) as children; libstdc++'s "
        "printer has none, as gdb's var object", r"^dap-lldb children count$",
        subject=r"^c\+\+ string", gdb=r"^[23]$", ours=r"^0$"),
    Explained(
        "lldb-16's libstdc++ formatter for unordered containers finds size 0 in this "
        "libstdc++'s _Hashtable (its summary says size=0); the element is there, as gdb's "
        "printer and print show it", r"^dap-lldb children count$",
        subject=r"^c\+\+ unordered_(map|set)$", gdb=r"^0$", ours=r"^1$"),
    Explained(
        "lldb-16 has no libstdc++ formatter for std::variant, std::tuple, std::span or "
        "std::atomic: it lists their raw members; ours are the printer's children, gdb's",
        r"^dap-lldb children ", subject=r"^c\+\+ (variant|tuple|span|atomic)"),
    Explained(
        "libstdc++'s bitset printer lists the bits that are set (`[1] = 1`); lldb's "
        "formatter lists every bit as a bool", r"^dap-lldb children ", subject=r"^c\+\+ bitset$"),
    Explained(
        "DAP shows a Rust enum's active variant's fields as its children (`__0` of a Some, "
        "none for a None), as the toolchain's lldb providers do; gdb's var objects, and ours "
        "in MI, list the discriminant (`<anonymous union>`) and the variant itself",
        r"^dap-gdb children ", subject=r"^rust (Option|Result|Vec<Option<String>>)"),
    Explained(
        "A value whose printer raises when made (the toolchain's StdRefProvider dereferences "
        "core::cell::Ref's NonNull `value`, a struct): gdb refuses its var object (Cannot "
        "instantiate printer for default visualizer); our DAP shows the raw value and members, "
        "as gdb's print shows them", r"^dap-gdb children count$", subject=r"^rust Ref$",
        gdb=r"^0$"),
)

# Bugs known and not fixed yet, each with its cause (and the area being worked on).
KNOWN_BUGS: tuple[Explained, ...] = ()


# --- MI, in lockstep with gdb -------------------------------------------------------------

def rust_printers_dir() -> Path | None:
    """The toolchain's gdb printers (`lib/rustlib/etc` of `rustc --print sysroot`)."""
    rustc = find_rustc()
    if rustc is None:
        return None
    sysroot = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True,
                             check=False).stdout.strip()
    etc = Path(sysroot) / "lib" / "rustlib" / "etc"
    return etc if (etc / "gdb_lookup.py").is_file() else None


def gdb_options(program: PrintersProgram) -> list[str]:
    """What rust-gdb adds for Rust: the printers' directory trusted and searched for the
    `.debug_gdb_scripts` entry; gdb auto-loads libstdc++'s printers by itself."""
    etc = rust_printers_dir() if program.language == "rust" else None
    return [] if etc is None else ["-iex", f"add-auto-load-safe-path {etc}",
                                   "-iex", f"directory {etc}"]


def program_env(binary: Path) -> dict[str, str]:
    """Every debugger's (and so every debuggee's) environment: small, and the same; our
    server is this checkout's (as MiClient runs it)."""
    env = gdb_env()
    env["PWD"] = str(binary.parent)
    env["PYTHONPATH"] = str(ROOT)
    return env


@dataclass
class MiRun:
    """Both sides' records of one program's session, per subject and check."""

    steps: list[tuple[Subject | None, str, StepRecord, StepRecord]] = field(default_factory=list)
    broken: str = ""

    def gdb_children(self, subject: Subject) -> StepRecord | None:
        for owner, check, gdb, _ in self.steps:
            if owner == subject and check == "children":
                return gdb
        return None

    def var_create(self, subject: Subject) -> StepRecord | None:
        for owner, check, gdb, _ in self.steps:
            if owner == subject and check == "var-create":
                return gdb
        return None


# Our progress lines while a first load reads and indexes the debug info (cold cache).
_PROGRESS = re.compile(r"^(Loading debug info of |Indexing global names)")


class Lockstep:
    """gdb and our server, each given every command in turn."""

    def __init__(self, program: PrintersProgram, binary: Path) -> None:
        common = ["-q", "-nx", "-i=mi"]
        env = program_env(binary)
        self.build_dir = str(binary.parent)
        # gdb's front ends (theirs and ours) add LINES and COLUMNS to the program's
        # environment; both unset them, as printers_dap's DAP side never has them.
        unset = ["-iex", "unset environment LINES", "-iex", "unset environment COLUMNS"]
        self.gdb = MiClient([*gdb_options(program), *unset, *common, str(binary)],
                            cwd=binary.parent, gdb=True, env=env)
        self.ours = MiClient([*unset, *common, str(binary)], cwd=binary.parent, env=env)
        self.output: list[str] = []
        self.gdb.prompt()
        self.ours.prompt()

    def send(self, command: str) -> tuple[StepRecord, StepRecord]:
        gdb = record_step(self.gdb, command, self.build_dir, self.output)
        ours = record_step(self.ours, command, self.build_dir, self.output)
        ours.console = [line for line in ours.console if not _PROGRESS.match(line)]
        return gdb, ours

    def close(self) -> None:
        self.gdb.close()
        self.ours.close()


def _first_with_children(step: StepRecord) -> str | None:
    """The first child gdb lists that has children of its own (a string's printer has
    none, whatever its numchild)."""
    result = step.result
    children = result.get("children") if isinstance(result, dict) else None
    for child in children if isinstance(children, list) else []:
        if not isinstance(child, dict):
            continue
        if child.get("numchild", "0") != "0" or (
                child.get("dynamic") == "1" and child.get("displayhint") != "string"):
            name = child.get("name")
            return name if isinstance(name, str) else None
    return None


def run_mi(program: PrintersProgram, binary: Path) -> MiRun:
    run = MiRun()
    both = Lockstep(program, binary)

    def send(subject: Subject | None, check: str, command: str) -> StepRecord:
        gdb, ours = both.send(command)
        run.steps.append((subject, check, gdb, ours))
        if gdb.error or ours.error:
            raise SessionBroke(f"{command}: {gdb.error or ours.error}")
        if check == "setup" and "error" in (_class(gdb), _class(ours)):
            raise SessionBroke(f"{command}: failed")
        return gdb

    try:
        for command in (f"-break-insert {program.location}", "-exec-run",
                        "-enable-pretty-printing"):
            send(None, "setup", command)
        for number, subject in enumerate(program.subjects, start=1):
            name, var = subject.variable, f"var{number}"
            send(subject, "eval", f"-data-evaluate-expression {name}")
            send(subject, "var-create", f"-var-create - * {name}")
            send(subject, "range", f"-var-list-children --all-values {var} 1 3")
            deeper = _first_with_children(
                send(subject, "children", f"-var-list-children --all-values {var}"))
            if deeper is not None:
                send(subject, "deeper", f"-var-list-children --all-values {deeper}")
            for check in ("print", "print/r"):
                send(subject, check, f'-interpreter-exec console "{check} {name}"')
        send(None, "locals", "-stack-list-variables --all-values")
    except SessionBroke as error:
        run.broken = str(error)
    finally:
        both.close()
    return run


def _class(step: StepRecord) -> str:
    result = step.result
    cls = result.get("class") if isinstance(result, dict) else None
    return cls if isinstance(cls, str) else ""


class SessionBroke(Exception):
    """A side stopped answering (a timeout, the server ended)."""


def mi_differences(program: PrintersProgram, run: MiRun) -> tuple[int, list[Difference]]:
    agree, found = 0, []
    for subject, check, gdb, ours in run.steps:
        out: list[tuple[str, str, str]] = []
        agree += compare_steps(gdb, ours, out)
        variable, kind = (subject.variable, subject.type) if subject else ("", "")
        found += [Difference("mi", program.language, variable, kind, check, gdb.command, path,
                             theirs, mine) for path, theirs, mine in out]
    return agree, found


# --- the report ---------------------------------------------------------------------------

@dataclass
class Outcome:
    program: PrintersProgram
    protocol: str
    checks: int = 0
    differences: list[Difference] = field(default_factory=list)
    seconds: float = 0.0
    note: str = ""


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def differences(self) -> list[Difference]:
        return [d for o in self.outcomes for d in o.differences]

    def unexplained(self) -> list[Difference]:
        return unexplained(self.differences, DELIBERATE, KNOWN_BUGS)

    def stale(self) -> list[Explained]:
        return stale(self.differences, DELIBERATE, KNOWN_BUGS)

    @property
    def types(self) -> int:
        done = {o.program.language for o in self.outcomes}
        return sum(len(p.subjects) for p in PROGRAMS if p.language in done)


def build(program: PrintersProgram, cache: Path) -> Path:
    builder = MoreBuilder(cache)
    if program.language == "c++":
        return builder.build_cpp(program.stem, (*CPP_FLAGS, "-std=c++20"))
    return builder.build_rust(program.stem)


def missing_tools(program: PrintersProgram) -> str:
    if gdb_path() is None:
        return "gdb"
    if program.language == "c++":
        return "" if find_cxx() else "g++"
    if find_rustc() is None:
        return "rustc"
    return "" if rust_printers_dir() else "the Rust toolchain's gdb printers (lib/rustlib/etc)"


def run(cache: Path, protocols: Sequence[str] = ("mi", "dap"),
        languages: Sequence[str] = ("c++", "rust")) -> Report:
    from conformance.printers_dap import dap_outcomes

    report = Report()
    for program in PROGRAMS:
        if program.language not in languages:
            continue
        missing = missing_tools(program)
        if missing:
            report.skipped.append(f"{program.language}: {missing} not found")
            continue
        binary = build(program, cache)
        started = time.monotonic()
        mi = run_mi(program, binary)
        checks, found = mi_differences(program, mi)
        outcome = Outcome(program, "mi", checks + len(found), found,
                          time.monotonic() - started, mi.broken)
        if "mi" in protocols:
            report.outcomes.append(outcome)
        if "dap" in protocols and mi.broken:
            report.skipped.append(f"dap {program.language}: gdb's children unknown (MI broke)")
        elif "dap" in protocols:
            outcomes, skipped = dap_outcomes(program, binary, mi)
            report.outcomes += outcomes
            report.skipped += skipped
    return report


def print_report(report: Report, verbose: bool) -> None:
    rows = [("program", "protocol", "checks", "differ", "unexplained", "notes")]
    fresh = set(map(id, report.unexplained()))
    for o in report.outcomes:
        new = sum(1 for d in o.differences if id(d) in fresh)
        rows.append((o.program.stem, o.protocol, str(o.checks), str(len(o.differences)), str(new),
                     o.note or f"{o.seconds:.1f}s"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    for line in report.skipped:
        print(f"skipped: {line}")
    groups = (("unexplained", report.unexplained()),
              ("known bugs (KNOWN_BUGS)", explained_by(report.differences, KNOWN_BUGS)),
              ("deliberate (DELIBERATE)", explained_by(report.differences, DELIBERATE)))
    for title, differences in groups:
        if differences and (verbose or title == "unexplained"):
            print(f"\n{title}: {len(differences)}")
            for difference in differences:
                print(f"  {difference}")
    checks = sum(o.checks for o in report.outcomes)
    print(f"\n{report.types} types, {checks} checks, {len(report.differences)} differences, "
          f"{len(report.unexplained())} unexplained")
    if not report.skipped:
        for entry in report.stale():
            print(f"no longer occurs in this run (remove it if fixed): {entry.reason}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.printers_diff",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-v", "--verbose", action="store_true", help="print every difference")
    parser.add_argument("--only", choices=("mi", "dap", "c++", "rust"), action="append",
                        help="one protocol or language (repeatable)")
    parser.add_argument("--cache", type=Path, help="build directory (default: a temporary one)")
    options = parser.parse_args(argv)
    only = options.only or []
    protocols = [p for p in ("mi", "dap") if p in only] or ["mi", "dap"]
    languages = [lang for lang in ("c++", "rust") if lang in only] or ["c++", "rust"]
    with tempfile.TemporaryDirectory(prefix="alice-printers-diff-") as tmp:
        cache = options.cache or Path(tmp)
        cache.mkdir(parents=True, exist_ok=True)
        report = run(cache, protocols, languages)
    print_report(report, options.verbose)
    return 1 if report.unexplained() else 0


if __name__ == "__main__":
    sys.exit(main())
