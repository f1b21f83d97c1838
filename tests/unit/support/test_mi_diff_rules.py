"""The comparison rules of conformance/mi_diff.py: normalization, client fields, diffing."""

from __future__ import annotations

from conformance.mi_diff import (
    ROOT,
    SCENARIOS,
    compare,
    expand,
    is_client_path,
    normalize_record,
    normalize_text,
    resumes,
)
from tests.support.mi_grammar import parse_record


def test_normalize_text_masks_layout_dependent_values() -> None:
    text = f"Thread 0x7ffff7d85740 (LWP 4242) at 0x00007fffffffe4b0 in {ROOT}/x.c, process 77"
    assert normalize_text(text, "") == "Thread <addr> (LWP <pid>) at <addr> in <root>/x.c, process <pid>"
    # code addresses of the (non-ASLR) program stay exact
    assert normalize_text("0x0000555555555149", "") == "0x0000555555555149"


def test_normalize_record_masks_pid_and_core_and_numbers_duplicate_keys() -> None:
    record = parse_record(
        '*stopped,reason="breakpoint-hit",thread-id="1",core="3",a="x",a="y",'
        'frame={addr="0x00007ffff7dd5000",fullname="/b/p.c"}'
    )
    assert normalize_record(record, "/b") == {
        "class": "stopped", "reason": "breakpoint-hit", "thread-id": "1", "core": "<core>",
        "a": "x", "a#2": "y", "frame": {"addr": "<addr>", "fullname": "<build>/p.c"},
    }  # fmt: skip
    started = parse_record('=thread-group-started,id="i1",pid="1234"')
    assert normalize_record(started, "") == {"class": "thread-group-started", "id": "i1", "pid": "<pid>"}


def test_compare_lists_paths_and_accepts_unrelocated_pie_addresses() -> None:
    found: list[tuple[str, str, str]] = []
    agree = compare(
        "result",
        {"bkpt": {"addr": "0x0000000000001153", "line": "13"}, "l": ["a", "b"]},
        {"bkpt": {"addr": "0x0000555555555153", "line": "14"}, "l": ["a"], "extra": "1"},
        found,
    )
    assert agree == 2  # addr (PIE-relative before run) and l[0]
    assert found == [
        ("result.bkpt.line", "13", "14"),
        ("result.l.length", "2", "1"),
        ("result.extra", "<missing>", "1"),
    ]


def test_client_fields() -> None:
    assert is_client_path("result.frame.fullname")
    assert is_client_path("exec[1].reason")
    assert is_client_path("result.BreakpointTable.body[0].times")
    assert is_client_path("notify.breakpoint-modified")
    assert is_client_path("notify.breakpoint-modified[0].bkpt.line")
    assert not is_client_path("notify.library-loaded[0]")
    assert not is_client_path("exec[1].core")
    assert not is_client_path("console[0]")
    assert not is_client_path("result.register-names.length")
    assert not is_client_path("result.register-names[60]")
    assert is_client_path("result.register-names[16]")
    assert not is_client_path("result.line", "-file-list-exec-source-file")
    assert is_client_path("result.line", "-stack-info-frame")


def test_resuming_commands_and_markers() -> None:
    assert resumes("-exec-next 1") and resumes("-exec-finish ") and resumes("continue")
    assert not resumes("-exec-arguments fail") and not resumes("-exec-interrupt")
    assert not resumes("bt") and not resumes("-break-insert main")
    assert expand("-break-insert mi_prog.c:{loop}", "mi_prog").split(":")[1].isdigit()
    names = [s.name for s in SCENARIOS]
    assert len(names) == len(set(names))
