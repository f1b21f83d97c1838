#!/usr/bin/env bash
# Prepare a machine to build and test aliceserver: the C toolchain and gdb (tests build and
# debug real programs), clang-16 (its DWARF 5), lldb-16 (the reference DAP adapter), Node.js
# and the npm packages of the client tests, then a virtual environment in .venv with the
# package installed editable. Idempotent: a second run with nothing to do takes well under
# a second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
STAMP="$VENV/.aliceserver-setup"

say() { printf 'setup: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# --- system packages (Debian names) ------------------------------------------------------
missing=()
for tool in gcc g++ gdb make; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
# lldb-vscode-16, the reference DAP adapter: conformance/dap_diff, bench dap_roundtrip and
# the client tests compare against it.
command -v lldb-vscode-16 >/dev/null 2>&1 || missing+=("lldb-16")
# clang-16 writes DWARF 5 with the indexed forms (strx, addrx, rnglistx, loclistx): the
# clang integration tests and the prologue_end tests build with it.
command -v clang-16 >/dev/null 2>&1 || missing+=("clang-16")
# Node.js runs the third-party DAP client tests (tests/clients); any node/npm already on
# PATH (nodesource, nvm...) is used as is.
command -v node >/dev/null 2>&1 || missing+=("nodejs")
command -v npm >/dev/null 2>&1 || missing+=("npm")
# The GDB/MI client tests (tests/clients) drive Emacs's M-x gdb and Vim's :Termdebug in a
# private tmux server. termdebug's default mode needs a Vim built with +terminal (Debian's
# `vim` package; vim-tiny lacks it); any Emacs (28+) will do, emacs-nox is the smallest.
command -v emacs >/dev/null 2>&1 || missing+=("emacs-nox")
{ command -v vim >/dev/null 2>&1 && vim --version 2>/dev/null | grep -q '+terminal'; } ||
    missing+=("vim")
command -v tmux >/dev/null 2>&1 || missing+=("tmux")
# dwz: tests/integration/test_dwz.py compresses its programs' DWARF as Debian's dh_dwz does
# (partial units, a common alt file).
command -v dwz >/dev/null 2>&1 || missing+=("dwz")
# gdbserver: the remote backend's tests (tests/integration/test_remote_*) talk to it.
command -v gdbserver >/dev/null 2>&1 || missing+=("gdbserver")
# The second architecture (tests/integration/test_aarch64_qemu.py): aarch64 programs built
# with the cross compiler, run under qemu-user's gdb stub and compared with gdb-multiarch.
# The cross libc's start files and headers are only a Recommends of the compiler, which
# --no-install-recommends below leaves out: asked for by name.
command -v qemu-aarch64 >/dev/null 2>&1 || missing+=("qemu-user")
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing+=("gcc-aarch64-linux-gnu")
[ -f /usr/aarch64-linux-gnu/lib/crti.o ] || missing+=("libc6-dev-arm64-cross")
command -v gdb-multiarch >/dev/null 2>&1 || missing+=("gdb-multiarch")
# libc's separate debug file: its frames' source lines (DAP stack traces are checked
# against gdb's bt of them); Debian/Ubuntu only, where dpkg is.
if command -v dpkg >/dev/null 2>&1 && ! dpkg -s libc6-dbg >/dev/null 2>&1; then
    missing+=("libc6-dbg")
fi

# Pick a Python >= 3.11: $PYTHON if set, else the first suitable python3.x on PATH.
python_ok() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; }
PY=""
if [ -n "${PYTHON:-}" ]; then
    python_ok "$PYTHON" || die "PYTHON=$PYTHON is not a Python >= 3.11"
    PY="$(command -v "$PYTHON")"
else
    for candidate in python3 python3.13 python3.12 python3.11; do
        if command -v "$candidate" >/dev/null 2>&1 && python_ok "$candidate"; then
            PY="$(command -v "$candidate")"
            break
        fi
    done
fi
[ -n "$PY" ] || die "Python >= 3.11 is required (python3 is: $(python3 --version 2>&1 || echo missing)); set PYTHON=/path/to/python3.11"

# Debian splits venv/ensurepip out of python3 itself.
if [ ! -x "$VENV/bin/python" ] && ! "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    missing+=("python3-venv")
fi

if [ "${#missing[@]}" -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        say "warning: missing ${missing[*]} and no apt-get here; install them with your package manager"
        say "warning: (unit tests still run; tests that build or debug C programs will fail or skip)"
    else
        SUDO=""
        if [ "$(id -u)" -ne 0 ]; then
            command -v sudo >/dev/null 2>&1 || die "missing ${missing[*]}; run as root or install them"
            SUDO="sudo"
        fi
        say "installing ${missing[*]}"
        $SUDO apt-get update -qq
        $SUDO env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
fi

# --- npm packages for the client tests (tests/clients) ------------------------------------
# `npm ci` from the committed package-lock.json, redone only when the lock file changes.
CLIENTS="$ROOT/tests/clients"
if [ -f "$CLIENTS/package-lock.json" ] && command -v npm >/dev/null 2>&1; then
    lock="$(sha256sum "$CLIENTS/package-lock.json" | cut -d' ' -f1)"
    npm_stamp="$CLIENTS/node_modules/.aliceserver-setup"
    if [ ! -f "$npm_stamp" ] || [ "$(cat "$npm_stamp")" != "$lock" ]; then
        say "installing the npm packages of tests/clients"
        if ! (cd "$CLIENTS" && npm ci --no-audit --no-fund --loglevel=error) \
            >"$CLIENTS/npm.log" 2>&1; then
            tail -n 40 "$CLIENTS/npm.log" >&2
            die "npm ci failed in tests/clients (full log: tests/clients/npm.log)"
        fi
        rm -f "$CLIENTS/npm.log"
        echo "$lock" >"$npm_stamp"
    fi
fi

# --- virtual environment -------------------------------------------------------------------
# The stamp records what was installed; when pyproject.toml, the interpreter and the
# project's location are unchanged, and the package still imports from this tree, skip pip.
# A "compat" editable install is a plain .pth line naming this tree: the default finder
# module costs every start of the debugger about 20 ms of imports.
EDITABLE=(--config-settings editable_mode=compat)
want="$( (cat "$ROOT/pyproject.toml"; "$PY" -VV; echo "$ROOT" "${EDITABLE[*]}") | sha256sum | cut -d' ' -f1)"
where_from='import aliceserver, os; print(os.path.dirname(os.path.dirname(aliceserver.__file__)))'
venv_ok() {
    [ -x "$VENV/bin/python" ] && python_ok "$VENV/bin/python" &&
        [ "$(cd / && "$VENV/bin/python" -c "$where_from" 2>/dev/null)" = "$ROOT" ]
}
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && venv_ok; then
    exit 0
fi

if [ -e "$VENV" ] && ! { [ -x "$VENV/bin/python" ] && python_ok "$VENV/bin/python"; }; then
    say "recreating .venv (its interpreter is missing or too old)"
    rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
    say "creating .venv with $("$PY" --version 2>&1)"
    "$PY" -m venv "$VENV"
fi
say "installing aliceserver and its test dependencies into .venv"
# pip's output goes to a log, shown only when the install fails.
if ! (cd "$ROOT" && "$VENV/bin/python" -m pip install -q "${EDITABLE[@]}" -e '.[test]') >"$VENV/pip.log" 2>&1; then
    tail -n 40 "$VENV/pip.log" >&2
    die "pip install failed (full log: .venv/pip.log)"
fi
venv_ok || die "aliceserver does not import from $ROOT after pip install"
echo "$want" >"$STAMP"
say "ready"
