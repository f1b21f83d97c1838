"""The test programs themselves, run natively (no debugger): a baseline that tells a broken
program from a broken engine, and a check of the @bp markers."""

from __future__ import annotations

import re
import signal
import subprocess

import pytest

from tests.support.build import PROGRAMS_DIR, Builder, marker_line

pytestmark = pytest.mark.timeout(60)

# name, argv, expected return code (negative: killed by that signal), expected stdout part
NATIVE = [
    ("calls", ["3"], 0, "sum=3\ndeep=8\nglobal_value=1122334455667788\nprobe=4757\n"),
    ("threads", [], 0, "hits=8\n"),
    ("serial_threads", [], 0, "counter=8\n"),
    ("signals", [], 0, "handled=10\n"),
    ("raise_sig", ["15"], -signal.SIGTERM, ""),
    ("crash", ["segv"], -signal.SIGSEGV, ""),
    ("crash", ["fpe"], -signal.SIGFPE, ""),
    ("crash", ["ill"], -signal.SIGILL, ""),
    ("crash", ["bus"], -signal.SIGBUS, ""),
    ("crash", ["abort"], -signal.SIGABRT, ""),
    ("exitcode", ["255"], 255, "exiting with 255\n"),
    ("selfkill", [], -signal.SIGKILL, "about to die\n"),
    ("fork", [], 0, "child exited 7\n"),
    ("xmm", [], 0, "took 1.50\n"),
    ("watch", [], 0, "counter=5 u8=5 u16=10 u64=15 sink=77\n"),
    ("showenv", ["x"], 0, "arg[1]=x\n"),
]


@pytest.mark.parametrize(
    ("name", "args", "code", "stdout"),
    NATIVE,
    ids=[f"{n}-{'-'.join(a) or 'noargs'}" for n, a, _, _ in NATIVE],
)
def test_program_runs_natively(
    builder: Builder, name: str, args: list[str], code: int, stdout: str
) -> None:
    result = subprocess.run(
        [str(builder.build(name)), *args], capture_output=True, text=True, timeout=20
    )
    assert result.returncode == code, result.stderr
    assert stdout in result.stdout


def test_exec_and_stdin_natively(builder: Builder) -> None:
    target = builder.build("exec_target")
    result = subprocess.run(
        [str(builder.build("exec")), str(target), "hi"], capture_output=True, text=True, timeout=20
    )
    assert (result.returncode, result.stdout) == (
        42,
        "before exec\nexec target running hi\nin target_func\n",
    )
    echo = subprocess.run(
        [str(builder.build("stdin_echo"))],
        input="a\nb\n",
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert echo.stdout == "echo: a\necho: b\neof\n"


# Programs built with flags of their own, as their tests build them.
_OWN_FLAGS = {
    "avx": ("-mavx",),
    "avx512_writes": ("-mavx512f", "-mavx512bw", "-mavx512vl"),
    "entry_past_main": ("-nostartfiles",),
}


def test_every_program_builds_and_markers_are_unique(builder: Builder) -> None:
    for source in sorted(PROGRAMS_DIR.glob("*.c")):
        extra = list(_OWN_FLAGS.get(source.stem, ()))
        if source.stem.startswith("lib_") or source.stem.endswith("_lib"):  # shared libraries
            extra = ["-shared", "-fPIC"]
        name = source.stem.removesuffix("_main")
        partners = [p for p in (PROGRAMS_DIR / f"lib_{name}.c", PROGRAMS_DIR / f"{name}_lib.c") if p.is_file()]
        if source.stem.endswith("_main") and partners:  # linked with its library, built here
            library = builder.build(partners[0].stem, extra=["-shared", "-fPIC"])
            extra = ["-Wl,--no-as-needed", str(library), "-ldl"]
        part = PROGRAMS_DIR / f"{source.stem}_part.c"  # another unit of the same program
        if not source.stem.endswith("_part"):
            also = [part.stem] if part.is_file() else []
            assert builder.build(source.stem, extra=extra, also=also).is_file()
        for marker in set(re.findall(r"@bp:([\w-]+)", source.read_text())):
            line = marker_line(source, marker)
            assert f"@bp:{marker}" in source.read_text().splitlines()[line - 1]
