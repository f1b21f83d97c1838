"""Emacs `M-x gdb` (gdb-mi.el) against real gdb and against `aliceserver -i=mi`.

Emacs runs in a private tmux server (`emacs -nw -Q`, with gdb-many-windows, so the stack,
locals, breakpoints and I/O buffers are all live). The test types `M-x gdb` and the
command line (`bin/dbg -i=mi client_prog`, where bin/dbg runs gdb or our server), then
drives the session with the commands a user's keys run (gud-break, gud-next, gud-step,
gud-finish, gud-until, gud-cont, SPC in the breakpoints buffer, typing `run`, `print` and
`quit` in the *gud* buffer), called through `emacsclient`. Every step is judged by
Emacs's own state, dumped as JSON by an elisp function: where gud's overlay arrow points,
`gdb-inferior-status` (the reason shown in the mode line), `gdb-breakpoints-list` and the
breakpoint icons in the source buffer's margin, and the text of the *gud*, stack, locals,
disassembly and inferior I/O buffers.

The gdb variant proves the harness judges correctly; the aliceserver variant is the test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.build import find_compiler, marker_line
from tests.support.build_more import find_cxx
from tests.support.clients import (
    CPP_PROGRAM,
    DEBUGGERS,
    PROGRAM,
    PROGRAM_OUTPUT,
    Workspace,
    gdb_mi_results,
    line,
    make_workspace,
)
from tests.support.tmux import Tmux, find_tmux, wait_for

PATIENCE = 60.0  # seconds for any one client state to appear (a loaded machine is slow)

_INIT_EL = r"""
;; No background native compilation (extra processes, CPU) of what the test loads.
(when (boundp 'native-comp-deferred-compilation) (setq native-comp-deferred-compilation nil))
(setq server-socket-dir %(socket_dir)s)
(server-start)
(setq gud-gdb-command-name %(command_name)s)
(setq gdb-many-windows t)
(setq gdb-show-main nil)
(setq inhibit-startup-screen t)
(setq make-backup-files nil create-lockfiles nil)
(require 'json)
(require 'gdb-mi)

(defun alice-test--text (buffer)
  (if (buffer-live-p buffer)
      (with-current-buffer buffer (buffer-substring-no-properties (point-min) (point-max)))
    ""))

(defun alice-test--gdb-buffer (type)
  (alice-test--text (and gud-comint-buffer (buffer-live-p gud-comint-buffer)
                         (with-current-buffer gud-comint-buffer (gdb-get-buffer type)))))

(defun alice-test--icons (file)
  (let ((buffer (find-buffer-visiting file)) (lines nil))
    (when buffer
      (with-current-buffer buffer
        (dolist (overlay (overlays-in (point-min) (point-max)))
          (when (overlay-get overlay 'put-break)
            ;; The margin string: "B" for an enabled breakpoint, "b" for a disabled one.
            (let* ((before (overlay-get overlay 'before-string))
                   (display (and before (get-text-property 0 'display before)))
                   (mark (if (and (consp display) (stringp (cadr display)))
                             (substring-no-properties (cadr display))
                           "?")))
              (push (format "%%d:%%s" (line-number-at-pos (overlay-start overlay)) mark)
                    lines))))))
    (vconcat (sort lines #'string<))))

(defun alice-test-dump (file source)
  "Write the client's state as JSON to FILE."
  (let* ((marker (and (boundp 'gud-overlay-arrow-position) gud-overlay-arrow-position))
         (arrow-buffer (and (markerp marker) (marker-position marker) (marker-buffer marker)))
         (gud (and (bufferp gud-comint-buffer) (buffer-live-p gud-comint-buffer) gud-comint-buffer))
         (process (and gud (get-buffer-process gud)))
         (state
          (list
           (cons 'arrow_file (and arrow-buffer (buffer-file-name arrow-buffer)))
           (cons 'arrow_line (and arrow-buffer
                                  (with-current-buffer arrow-buffer
                                    (save-restriction (widen) (line-number-at-pos marker)))))
           (cons 'running (if gud-running t :json-false))
           (cons 'pending (length gdb-handler-list))
           (cons 'status gdb-inferior-status)
           (cons 'prompt gdb-prompt-name)
           (cons 'gud_live (if (and process (process-live-p process)) t :json-false))
           (cons 'gud_exists (if gud t :json-false))
           (cons 'breakpoints
                 (vconcat
                  (mapcar (lambda (entry)
                            (let ((bp (cdr entry)))
                              (list (cons 'number (gdb-mi--field bp 'number))
                                    (cons 'line (gdb-mi--field bp 'line))
                                    (cons 'fullname (gdb-mi--field bp 'fullname))
                                    (cons 'enabled (gdb-mi--field bp 'enabled))
                                    (cons 'times (gdb-mi--field bp 'times)))))
                          gdb-breakpoints-list)))
           (cons 'icons (alice-test--icons source))
           (cons 'gud_text (alice-test--text gud))
           (cons 'stack_text (alice-test--gdb-buffer 'gdb-stack-buffer))
           (cons 'locals_text (alice-test--gdb-buffer 'gdb-locals-buffer))
           (cons 'io_text (alice-test--gdb-buffer 'gdb-inferior-io))
           (cons 'disassembly_text (alice-test--gdb-buffer 'gdb-disassembly-buffer))
           ;; The watch expressions (speedbar): (name expr numchild type value status has_more ...).
           (cons 'watches (vconcat (mapcar (lambda (var)
                                             (vconcat (mapcar (lambda (field) (format "%%s" field)) var)))
                                           gdb-var-list)))
           (cons 'messages (alice-test--text (get-buffer "*Messages*"))))))
    (with-temp-file file
      (insert (json-encode state)))
    t))
"""


def _lisp_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass
class EmacsState:
    raw: dict[str, Any]

    @property
    def arrow(self) -> tuple[str, int] | None:
        if self.raw.get("arrow_file") is None or self.raw.get("arrow_line") is None:
            return None
        return Path(str(self.raw["arrow_file"])).name, int(self.raw["arrow_line"])

    @property
    def running(self) -> bool:
        return bool(self.raw.get("running"))

    @property
    def status(self) -> str | None:
        value = self.raw.get("status")
        return None if value is None else str(value)

    @property
    def breakpoints(self) -> list[tuple[str, int, str]]:
        """(number, line, source basename) of every breakpoint Emacs knows."""
        found = []
        for bp in self.raw.get("breakpoints") or []:
            found.append((str(bp["number"]), int(bp["line"] or 0), Path(str(bp["fullname"])).name))
        return sorted(found)

    @property
    def icons(self) -> list[tuple[int, str]]:
        """(line, "B" or "b") of every breakpoint icon in the source buffer's margin."""
        found = []
        for icon in self.raw.get("icons") or []:
            number, _, mark = str(icon).partition(":")
            found.append((int(number), mark))
        return sorted(found)

    def text(self, name: str) -> str:
        return str(self.raw.get(f"{name}_text") or "")


class Emacs:
    def __init__(self, space: Workspace, tmux: Tmux, socket: Path) -> None:
        self.space = space
        self.tmux = tmux
        self.socket = socket
        self.state_file = space.root / "emacs-state.json"
        self.last: EmacsState | None = None

    def eval(self, form: str, check: bool = True) -> str:
        emacsclient = shutil.which("emacsclient") or "emacsclient"
        done = subprocess.run(
            [emacsclient, "--socket-name", str(self.socket), "--eval", form],
            capture_output=True, text=True, timeout=PATIENCE, env=self.space.env(),
        )
        if check and done.returncode != 0:
            raise AssertionError(f"emacsclient --eval {form}: {done.stderr.strip()}\n{self.report()}")
        return done.stdout.strip()

    def state(self) -> EmacsState:
        self.tmux.remember()
        self.eval(
            f"(alice-test-dump {_lisp_string(str(self.state_file))} "
            f"{_lisp_string(str(self.space.source))})"
        )
        self.last = EmacsState(json.loads(self.state_file.read_text()))
        return self.last

    def report(self) -> str:
        parts = ["screen:", self.tmux.screen()]
        if self.last is not None:
            last = self.last
            parts += [
                f"last state: arrow {last.arrow} status {last.status!r} running {last.running}"
                f" breakpoints {last.breakpoints} icons {last.icons}",
            ]
            parts += [
                "*gud* (tail):", self.last.text("gud")[-2500:],
                "*Messages* (tail):", str(self.last.raw.get("messages", ""))[-1500:],
            ]
        if self.space.debugger == "aliceserver":
            parts.append(self.space.server_log_tail())
        return "\n".join(parts)

    def wait(self, what: str, probe: Callable[[EmacsState], bool]) -> EmacsState:
        def check() -> EmacsState | None:
            state = self.state()
            return state if probe(state) else None

        return wait_for(check, PATIENCE, what, self.report)

    def settle(self) -> None:
        """Wait until gdb-mi has the replies to every command it sent, as a user sees the
        buffers refreshed before the next key. gdb-mi refreshes them at a stop only while
        no reply came since the user's command (gdb-first-done-or-error): a command typed
        while a refresh is still answered leaves the arrow behind, with gdb as with us."""
        self.wait("gdb-mi's pending commands answered", lambda s: s.raw.get("pending") == 0)

    def in_source(self, form: str, at: int | None = None) -> None:
        """Evaluate `form` in the source buffer (point on line `at`), as a key there would."""
        self.settle()
        move = f"(goto-char (point-min)) (forward-line {at - 1}) " if at is not None else ""
        self.eval(
            f"(with-current-buffer (find-file-noselect {_lisp_string(str(self.space.source))}) "
            f"{move}{form})"
        )

    def type_in_gud(self, text: str) -> None:
        """What typing TEXT and RET in the *gud* buffer does."""
        self.settle()
        self.eval(
            "(with-current-buffer gud-comint-buffer (goto-char (point-max)) "
            f"(insert {_lisp_string(text)}) (comint-send-input))"
        )

    def wait_stop(self, what: str, line_no: int, status: str) -> EmacsState:
        source = self.space.source.name
        return self.wait(
            f"{what}: the arrow on {source}:{line_no}, status {status!r}, not running",
            lambda s: s.arrow == (source, line_no) and s.status == status and not s.running,
        )


@pytest.fixture(params=DEBUGGERS)
def emacs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Emacs]:
    compiler = find_compiler()
    if compiler is None:
        pytest.skip("gcc not found: the test compiles its program")
    yield from _emacs_on(str(request.param), tmp_path, compiler, PROGRAM, ".c")


@pytest.fixture(params=DEBUGGERS)
def emacs_cpp(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Emacs]:
    """Emacs on client_cpp.cpp (std containers shown through libstdc++'s printers)."""
    compiler = find_cxx()
    if compiler is None:
        pytest.skip("g++ not found: the test compiles its program")
    yield from _emacs_on(str(request.param), tmp_path, compiler, CPP_PROGRAM, ".cpp")


def _emacs_on(debugger: str, tmp_path: Path, compiler: str, name: str, suffix: str) -> Iterator[Emacs]:
    for tool in ("emacs", "emacsclient"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (Debian package emacs-nox; scripts/setup.sh installs it)")
    if find_tmux() is None:
        pytest.skip("tmux is not installed (scripts/setup.sh installs it)")
    if debugger == "gdb" and shutil.which("gdb") is None:
        pytest.skip("gdb is not installed: the reference run needs it")
    space = make_workspace(tmp_path, debugger, compiler, name, suffix)
    # Emacs's server socket lives in a short private directory (a socket path must stay
    # under 108 bytes; pytest's tmp_path can be long).
    socket_dir = Path(tempfile.mkdtemp(prefix="alice-emacs-"))
    tmux: Tmux | None = None
    try:
        init = tmp_path / "init.el"
        init.write_text(
            _INIT_EL
            % {
                "socket_dir": _lisp_string(str(socket_dir)),
                "command_name": _lisp_string(f"{space.wrapper} -i=mi"),
            }
        )
        tmux = Tmux.start(
            ["emacs", "-nw", "-Q", "-l", str(init), space.source.name],
            cwd=space.work, env=space.env(), prefix="alice-emacs",
        )
        client = Emacs(space, tmux, socket_dir / "server")
        wait_for(
            lambda: client.socket.exists() or None, PATIENCE, "Emacs's server socket", client.report
        )
        yield client
    finally:
        if tmux is not None:
            tmux.close()
        shutil.rmtree(socket_dir, ignore_errors=True)


def start_gdb(emacs: Emacs) -> None:
    """M-x gdb RET, then the command line, as a user types it."""
    emacs.tmux.send_keys("M-x")
    emacs.tmux.type_text("gdb")
    emacs.tmux.send_keys("Enter")
    wait_for(lambda: "Run gdb (like this):" in emacs.tmux.screen() or None, PATIENCE,
             "the M-x gdb prompt", emacs.report)
    emacs.tmux.send_keys("C-a", "C-k")
    emacs.tmux.type_text(f"{emacs.space.wrapper} -i=mi {emacs.space.name}")
    emacs.tmux.send_keys("Enter")
    # gdb-mi's initialization is over once it has asked for the prompt (-gdb-show prompt).
    state = emacs.wait("gdb-mi initialized (gdb-prompt-name set)",
                       lambda s: s.raw.get("prompt") == "(gdb) " and bool(s.raw.get("gud_live")))
    assert "Either -i=mi wasn't specified" not in state.text("gud")


def test_emacs_gdb_session(emacs: Emacs) -> None:
    source = emacs.space.source.name
    start_gdb(emacs)

    # C-x C-a C-b on the first line of main, then `run` typed in *gud*.
    emacs.in_source("(gud-break 1)", at=line("main_first"))
    state = emacs.wait("the first breakpoint in gdb-breakpoints-list and its icon",
                       lambda s: len(s.breakpoints) == 1 and s.icons == [(line("main_first"), "B")])
    assert state.breakpoints == [("1", line("main_first"), source)]
    emacs.type_in_gud("run")
    emacs.wait_stop("run", line("main_first"), "breakpoint-hit")

    emacs.in_source("(gud-next 1)")
    emacs.wait_stop("next", line("loop_head"), "end-stepping-range")
    emacs.in_source("(gud-next 1)")
    emacs.wait_stop("next", line("loop_body"), "end-stepping-range")
    emacs.in_source("(gud-step 1)")
    emacs.wait_stop("step into square", line("square_body"), "end-stepping-range")
    emacs.wait("the stack buffer showing square above main",
               lambda s: "square" in s.text("stack") and "main" in s.text("stack")
               and s.text("stack").index("square") < s.text("stack").index("main"))
    # The disassembly buffer (-data-disassemble -f FILE -l LINE -n -1: the whole function).
    emacs.eval("(with-current-buffer gud-comint-buffer (gdb-get-buffer-create 'gdb-disassembly-buffer))")
    emacs.wait("the disassembly buffer showing square from its first instruction",
               lambda s: "<square+0>:" in s.text("disassembly") and "<main+" not in s.text("disassembly"))

    emacs.in_source("(gud-finish 1)")
    emacs.wait_stop("finish", line("loop_body"), "function-finished")
    state = emacs.wait("'Value returned is $1 = 1' in *gud*",
                       lambda s: "Value returned is $1 = 1" in s.text("gud"))
    emacs.wait("the locals buffer showing total and i",
               lambda s: _has_local(s.text("locals"), "total", "0")
               and _has_local(s.text("locals"), "i", "1"))
    emacs.type_in_gud("print total + 40")  # a CLI command typed in *gud*
    emacs.wait("'$2 = 40' in *gud*", lambda s: "$2 = 40" in s.text("gud"))

    emacs.in_source("(gud-until 1)", at=line("after_loop"))
    emacs.wait_stop("until", line("after_loop"), "location-reached")

    emacs.in_source("(gud-break 1)", at=line("end"))
    state = emacs.wait("two breakpoints and their icons",
                       lambda s: len(s.breakpoints) == 2
                       and s.icons == [(line("main_first"), "B"), (line("end"), "B")])
    assert state.breakpoints == [("1", line("main_first"), source), ("2", line("end"), source)]
    # SPC on its row of the breakpoints buffer disables it (-break-disable), SPC again enables.
    for mark, flag in (("b", "n"), ("B", "y")):
        emacs.eval(
            "(with-current-buffer (with-current-buffer gud-comint-buffer"
            " (gdb-get-buffer 'gdb-breakpoints-buffer))"
            ' (goto-char (point-min)) (re-search-forward "^2 ") (gdb-toggle-breakpoint))'
        )
        emacs.wait(f"breakpoint 2 enabled={flag!r} in the list, its icon {mark!r}",
                   _toggled(line("end"), mark, flag))

    emacs.in_source("(gud-cont 1)")
    state = emacs.wait_stop("continue to the second breakpoint", line("end"), "breakpoint-hit")
    emacs.wait("the program's output in the inferior I/O buffer",
               lambda s: PROGRAM_OUTPUT in s.text("io"))
    emacs.wait("hit counts in the breakpoint list",
               lambda s: [bp["times"] for bp in sorted(s.raw["breakpoints"], key=lambda b: b["number"])]
               == ["1", "1"])

    emacs.in_source("(gud-cont 1)")
    state = emacs.wait("the program's exit", lambda s: s.status == "exited-normally")
    assert "exited normally]" in state.text("gud")

    emacs.type_in_gud("quit")
    state = emacs.wait("the debugger's clean exit ('Debugger finished' in *gud*)",
                       lambda s: not s.raw.get("gud_live") and "Debugger finished" in s.text("gud"))


def _toggled(line_no: int, mark: str, flag: str) -> Callable[[EmacsState], bool]:
    def probe(state: EmacsState) -> bool:
        return (line_no, mark) in state.icons and any(
            bp["number"] == "2" and bp["enabled"] == flag for bp in state.raw["breakpoints"]
        )

    return probe


def _has_local(text: str, name: str, value: str) -> bool:
    """A row of the locals buffer: `int   NAME   VALUE`."""
    for row in text.splitlines():
        fields = row.split()
        if len(fields) >= 3 and fields[-2] == name and fields[-1] == value:
            return True
    return False


def test_emacs_shows_library_values_as_with_gdb(emacs_cpp: Emacs) -> None:
    """The locals buffer (-stack-list-locals --simple-values) and a watch expression on a
    std::vector (gud-watch: -var-create, expanded in the speedbar: -var-list-children)
    show what real gdb's answers make them show, row for row."""
    emacs = emacs_cpp
    ready = marker_line(emacs.space.source, "ready")
    location = f"{emacs.space.source.name}:{ready}"
    [listed, created, children] = gdb_mi_results(emacs.space, location, [
        "-stack-list-locals --simple-values", "-var-create - * numbers",
        "-var-list-children --all-values var1",
    ])  # fmt: skip
    if created.get("displayhint") != "array":
        pytest.skip(f"gdb runs no libstdc++ printers here: {created}")
    start_gdb(emacs)
    emacs.in_source("(gud-break 1)", at=ready)
    emacs.wait("the breakpoint in gdb-breakpoints-list", lambda s: len(s.breakpoints) == 1)
    emacs.type_in_gud("run")
    emacs.wait_stop("run", ready, "breakpoint-hit")

    # Each row as gdb-mi's table shows it: type, name, the value or <complex data type>.
    expected = [_words(f"{local['type']} {local['name']} {local.get('value', '<complex data type>')}")
                for local in listed["locals"]]  # fmt: skip
    state = emacs.wait("the locals buffer listing main's locals",
                       lambda s: [_words(row) for row in s.text("locals").splitlines()] == expected)

    # gud-watch on `numbers` (point on it in the source), then its speedbar node expanded.
    column = emacs.space.source.read_text().splitlines()[ready - 1].index("numbers")
    emacs.in_source(f"(progn (forward-char {column}) (gud-watch))", at=ready)
    watched = emacs.wait("the watch expression in gdb-var-list", lambda s: len(s.raw.get("watches") or []) == 1)
    [var] = watched.raw["watches"]
    assert [var[0], var[1], var[3], var[4]] == [created["name"], "numbers", created["type"], created["value"]]
    emacs.eval(f"(with-current-buffer gud-comint-buffer (gdb-var-list-children {_lisp_string(var[0])}))")
    state = emacs.wait("the vector's elements under it in gdb-var-list",
                       lambda s: len(s.raw.get("watches") or []) == 1 + len(children["children"]))
    rows = [[v[0], v[1], v[2], v[3], v[4]] for v in state.raw["watches"][1:]]
    assert rows == [[c["name"], c["exp"], c["numchild"], c["type"], c["value"]] for c in children["children"]]
    assert state.raw["watches"][0][2] == children["numchild"]


def _words(text: str) -> str:
    return " ".join(text.split())
