"""Emacs `M-x gud-gdb` (gud.el's plain gdb mode) against real gdb and against aliceserver.

gud-gdb runs `gdb --fullname PROG` and follows the program by the annotation lines gdb
prints at level 1 (`\\032\\032FILE:LINE:CHAR:beg:PC`): its process filter reads each one
into `gud-last-frame`, and shows that line with its arrow (`gud-last-last-frame` after).
Emacs runs in batch mode: it starts gud-gdb through the workspace's bin/dbg, types `break
square`, `run`, `up` and `continue` in the *gud* buffer, and reports the frame gud shows
after each, which must be the program's lines as the breakpoint and `up` leave them.

The gdb variant proves the harness judges correctly; the aliceserver variant is the test.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.build import find_compiler
from tests.support.clients import DEBUGGERS, PROGRAM_OUTPUT, line, make_workspace

PATIENCE = 60  # seconds for any one step (a loaded machine is slow)

_GUD_EL = r"""
(require 'gud)
(defun alice-wait (pred)
  (let ((end (+ (float-time) %(patience)d)))
    (while (and (not (funcall pred)) (< (float-time) end))
      (accept-process-output nil 0.1))
    (funcall pred)))
(defun alice-prompted ()
  (with-current-buffer gud-comint-buffer
    (save-excursion (goto-char (point-max)) (looking-back "(gdb) " 10))))
(defun alice-type (command)
  (setq gud-last-last-frame nil)
  (with-current-buffer gud-comint-buffer
    (goto-char (point-max)) (insert command) (comint-send-input)))
(defun alice-frame (command)
  (alice-type command)
  (alice-wait (lambda () (and gud-last-last-frame (alice-prompted))))
  (princ (format "%%s -> %%s:%%s\n" command
                 (and gud-last-last-frame (file-name-nondirectory (car gud-last-last-frame)))
                 (cdr gud-last-last-frame))))
(gud-gdb "%(wrapper)s --fullname %(program)s")
(alice-wait #'alice-prompted)
(alice-type "break square")
(alice-wait (lambda () (with-current-buffer gud-comint-buffer
                         (string-match "Breakpoint 1 at" (buffer-string)))))
(alice-frame "run")
(alice-frame "up")
(alice-frame "continue")
(alice-type "delete 1")
(alice-wait #'alice-prompted)
(alice-type "continue")
(alice-wait (lambda () (with-current-buffer gud-comint-buffer
                         (string-match "exited normally" (buffer-string)))))
(princ (with-current-buffer gud-comint-buffer (buffer-substring-no-properties 1 (point-max))))
(kill-process (get-buffer-process gud-comint-buffer))
"""


@pytest.mark.parametrize("debugger", DEBUGGERS)
def test_gud_gdb_follows_the_stops(debugger: str, tmp_path: Path) -> None:
    emacs, compiler = shutil.which("emacs"), find_compiler()
    if emacs is None or compiler is None:
        pytest.skip("emacs or a C compiler not installed")
    if debugger == "gdb" and shutil.which("gdb") is None:
        pytest.skip("gdb not installed")
    space = make_workspace(tmp_path, debugger, compiler)
    script = tmp_path / "gud.el"
    script.write_text(
        _GUD_EL % {"patience": PATIENCE, "wrapper": space.wrapper, "program": space.program.name}
    )
    done = subprocess.run([emacs, "-Q", "--batch", "-l", str(script)], cwd=space.work, env=space.env("dumb"),
                          capture_output=True, text=True, timeout=5 * PATIENCE)  # fmt: skip
    out = done.stdout + done.stderr
    body, loop = line("square_body"), line("loop_body")
    assert f"run -> client_prog.c:{body}\n" in out, out + space.server_log_tail()
    assert f"up -> client_prog.c:{loop}\n" in out, out + space.server_log_tail()
    assert f"continue -> client_prog.c:{body}\n" in out, out + space.server_log_tail()
    assert PROGRAM_OUTPUT in out and "exited normally" in out, out
