"""What a session to its first stop imports: the parts it never runs are imported on first
use (engine_lazy.py, the expression evaluator's package), since importing is most of a
warm start's time (bench/first_stop.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.build import Builder

pytestmark = pytest.mark.timeout(60)

_CHILD = r"""
import json, sys
from aliceserver.startup import import_quietly
PtraceDebugger = import_quietly("aliceserver.debuggers.ptrace.engine").PtraceDebugger
from aliceserver.debuggers.events import Exited, Stopped
from aliceserver.debuggers.model import LaunchConfig, VariableScope
debugger = PtraceDebugger(cache_dir=sys.argv[2])
events = debugger.subscribe()
try:
    debugger.launch(LaunchConfig(sys.argv[1], args=("3",)))
    debugger.insert_location_breakpoint("add")
    debugger.resume()
    while not isinstance(event := events.get(timeout=30), (Stopped, Exited)):
        pass
    assert isinstance(event, Stopped), event
    top = debugger.stack_trace(event.thread_id, 0, 1)[0]
    args = debugger.frame_variables(event.thread_id, 0, VariableScope.ARGUMENTS)
    symbols = debugger.has_debug_info(sys.argv[1])  # as MI's =library-loaded records ask
    made = [name for name in ("LineRange", "SymbolSearchQuery")  # the symbol queries' types
            if name in vars(sys.modules["aliceserver.debuggers.model"])]
    print(json.dumps({"function": top.function, "args": [v.name for v in args],
                      "symbols": symbols, "modules": sorted(sys.modules), "made": made}))
finally:
    debugger.close()
"""

# Modules of parts a first stop never uses (each imported by one of them alone).
_NOT_AT_A_FIRST_STOP = (
    "aliceserver.debuggers.ptrace.calltrace",  # call tracing
    "aliceserver.debuggers.ptrace.patched_calltrace",  # its jump patches' recorder
    "aliceserver.debuggers.ptrace.gcore",  # gcore
    "aliceserver.debuggers.source.symbolsearch",  # symbol search
    "aliceserver.debuggers.symbols.dwarf.expr.parser",  # the expression evaluator
    "aliceserver.debuggers.symbols.dwarf.expr.evaluate",
    "aliceserver.debuggers.symbols.dwarf.expr.compiled",  # the condition compiler
    "aliceserver.debuggers.remote.libraries",  # a remote stub's library list,
    "xml.etree.ElementTree",  # read (and its target description) with an XML parser
    "platform",  # (the host's machine: os.uname's)
    "aliceserver.debuggers.ptrace.patched_sites",  # jump patches: made for a condition
    "aliceserver.debuggers.ptrace.patches.trampoline",  # or an ignore count, with their
    "aliceserver.debuggers.ptrace.patches.codegen",  # code, trampolines and areas
    "aliceserver.debuggers.ptrace.patches.sites",  # (a site's plan: its instructions decoded)
    "aliceserver.debuggers.symbols.dwarf.expr.condition_ir",
    "aliceserver.debuggers.core.reader",  # a core file's reader
    "aliceserver.debuggers.core.writer",  # gcore's writer
    "ast",  # inspect's (dataclasses': their signatures are read from __init__)
    "dis",
    "tempfile",  # a remote stub's file copies
    "shutil",  # a program given by a bare name (`which`)
    "decimal",  # decimal floats' values, and long doubles'
    "linecache",  # logging's traceback (import_quietly defers it: an exception logged
    "tokenize",  # imports it, with these)
    "textwrap",
    "pickle",  # the index cache's pickles are read and written by its accelerator, _pickle
    # Parts of other commands, imported where they are first used: ptype and whatis,
    # log messages, watchpoints' names, a step's line oracle, disassembly's AT&T spelling,
    # member pointers, tail-call frames, a file's line table, backtraces by frame pointer.
    "aliceserver.debuggers.symbols.dwarf.ptype",
    "aliceserver.debuggers.symbols.dwarf.ptype_cplus",
    "aliceserver.debuggers.symbols.dwarf.ptype_offsets",
    "aliceserver.debuggers.symbols.dwarf.typekeys",
    "aliceserver.debuggers.symbols.dwarf.expr.noprogram",
    "aliceserver.debuggers.source.datasymbols",
    "aliceserver.debuggers.source.logmessages",
    "aliceserver.debuggers.source.watchnames",
    "aliceserver.debuggers.source.lineoracle",
    "aliceserver.debuggers.symbols.att_spelling",
    "aliceserver.debuggers.symbols.dwarf.memberptr",
    "aliceserver.debuggers.symbols.dwarf.tailcalls",
    "aliceserver.debuggers.symbols.dwarf.symtab_lines",
    "aliceserver.debuggers.symbols.fpunwind",
    "aliceserver.debuggers.symbols.dwarf.class_decls",  # a class's declarations (ptype)
    "aliceserver.debuggers.source.stepping",  # a step's plan (source/steps.py)
    "aliceserver.debuggers.symbols.dwarf.cxxnames",  # C++ names' parser (a C program's: none)
    "aliceserver.debuggers.symbols.dwarf.entrychain",  # DW_OP_entry_value's evaluation
    "aliceserver.debuggers.calls.driver",  # calls into the program (f(x) in an expression),
    "aliceserver.debuggers.calls.plan",  # their ABI's plan and the ptrace backend's caller
    "aliceserver.debuggers.ptrace.infcall",
    "aliceserver.debuggers.remote.hostio",  # a stub's files (target: sysroot)
    "aliceserver.debuggers.remote.packets",
    "elftools.elf.enums",  # the names of machines other than x86-64 and AArch64
    # pyelftools' DW_* constants, imported by DWARFInfo's line program and call frame
    # readers, which ours replace (deferred_names.py: imported at their first call).
    "elftools.dwarf.constants",
    "_heapq",  # PriorityQueue's heapq (queue's import of it: deferred_names.py)
)
# Imported by the MI front end's start (it holds the program's file before `run`; its
# `skip` command reads the skip list; its register commands format x87 values), not by
# the engine's first stop.
_NOT_AT_AN_ENGINE_FIRST_STOP = (
    *_NOT_AT_A_FIRST_STOP,
    "aliceserver.debuggers.ptrace.programfile",  # a program read from its file
    "aliceserver.debuggers.core.memory",
    "aliceserver.debuggers.stepskips",
    "aliceserver.debuggers.symbols.dwarf.x87",  # long doubles' values (MI's registers)
    "aliceserver.debuggers.model_symbols",  # symbol queries' values (MI's commands name them)
    "aliceserver.debuggers.symbols.symtab_pack",  # the symbol table packed for a new index
    "aliceserver.debuggers.symbols.dwarf.rust_demangle",  # Rust's names (MI's demangle command)
)
# A new index is written through a temporary file of its own making (cache.py): a cold
# start imports no more than a warm one (tempfile imported random and shutil: 5-7 ms) but
# the packing of the program's symbol table for its index.
_INDEXING: tuple[str, ...] = ("aliceserver.debuggers.symbols.symtab_pack",)


def test_a_first_stop_imports_no_part_it_does_not_use(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("calls")
    cold = _first_stop_modules(program, tmp_path / "cache")
    warm = _first_stop_modules(program, tmp_path / "cache")  # its index cached by the first
    ours = [name for name in _NOT_AT_AN_ENGINE_FIRST_STOP if name not in _at_python_start()]
    assert [name for name in ours if name in cold and name not in _INDEXING] == []
    assert [name for name in ours if name in warm] == []


def _at_python_start() -> set[str]:
    """The modules an interpreter imports before any code of ours (3.13's: linecache)."""
    done = subprocess.run([sys.executable, "-c", "import sys; print(' '.join(sys.modules))"],
                          capture_output=True, text=True, timeout=50, check=True)  # fmt: skip
    return set(done.stdout.split())


def _first_stop_modules(program: Path, cache: Path) -> set[str]:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(program), str(cache)],
                          capture_output=True, text=True, env=env, timeout=50)  # fmt: skip
    assert done.returncode == 0, done.stderr
    stop = json.loads(done.stdout.strip().splitlines()[-1])
    assert stop["function"] == "add" and stop["args"] == ["a", "b"] and stop["symbols"]
    assert stop["made"] == []  # model_symbols.py's classes: made at their first use
    return set(stop["modules"])


# Through gdb's command line (`aliceserver -i=mi`), as an editor starts a session: the MI
# front end's start imports none of these either (its command line's dataclasses were made
# before import_quietly's stand-in for inspect, which imported ast and dis; info os, shell,
# pipe and the ignore counts of jump patches imported their modules).
_MI_CHILD = r"""
import atexit, json, runpy, sys
atexit.register(lambda: sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\n"))
sys.argv = ["aliceserver", *sys.argv[1:]]
runpy.run_module("aliceserver", run_name="__main__", alter_sys=True)
"""
_NOT_AT_AN_MI_FIRST_STOP = (
    *_NOT_AT_A_FIRST_STOP,
    "subprocess",  # shell and pipe commands
    "socket",  # info os (osdata.py)
)


def test_the_mi_front_end_imports_no_part_a_first_stop_does_not_use(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("calls")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    command = [sys.executable, "-c", _MI_CHILD, "-i=mi", "-q", "--cache-dir", str(tmp_path / "cache"),
               "--args", str(program), "3"]  # fmt: skip
    for run in ("cold", "warm"):
        with open(tmp_path / run, "w") as err:  # a file: a pipe left unread could fill
            proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                    text=True, env=env)  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("-break-insert add\n-exec-run\n")
        proc.stdin.flush()
        stop = next((line for line in proc.stdout if line.startswith("*stopped")), "")
        proc.stdin.write("-stack-list-arguments 1 0 0\n-gdb-exit\n")
        proc.stdin.close()
        output = proc.stdout.read()
        assert proc.wait(timeout=50) == 0
        errors = (tmp_path / run).read_text()
        assert 'func="add"' in stop and 'name="a"' in output, (stop, output)
        listed = [line for line in errors.splitlines() if line.startswith("MODULES ")]
        modules = set(json.loads(listed[-1][len("MODULES ") :]))
        at_start = _at_python_start()
        assert [name for name in _NOT_AT_AN_MI_FIRST_STOP if name in modules and name not in at_start] == []


def test_the_dap_adapter_imports_the_gdb_console_at_its_first_use() -> None:
    """The debug console (MI's command language and its sessions, a hundred modules) is made
    by the first `repl` evaluate; the adapter imported it at its start."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    listed = "print(sorted(m for m in sys.modules if m.startswith('aliceserver.adapters.')))"
    started = f"import sys, aliceserver.adapters.dap; {listed}"
    done = subprocess.run([sys.executable, "-c", started], capture_output=True, text=True, env=env, timeout=50)
    assert done.returncode == 0, done.stderr
    assert "aliceserver.adapters.dap.server" in done.stdout
    assert "aliceserver.adapters.mi.session" not in done.stdout
    assert "aliceserver.adapters.console.hosted" not in done.stdout
    console = f"import sys, aliceserver.adapters.dap; from aliceserver.adapters.dap import repl; {listed}"
    done = subprocess.run([sys.executable, "-c", console], capture_output=True, text=True, env=env, timeout=50)
    assert "aliceserver.adapters.console.hosted" in done.stdout  # (imported by the repl)
