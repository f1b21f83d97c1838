"""The strict MI checker itself: it accepts real gdb's output and rejects malformed lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.mi_grammar import GrammarError, check_transcript, parse_record

REFERENCE = Path(__file__).resolve().parents[5] / "shared" / "reference" / "gdb-mi"


@pytest.mark.parametrize(
    "line",
    [
        "^weird", '^done,a="1"garbage', '~"unterminated', r'~"bad \q"', "(gdb)", '*stopped,reason=1',
        '12*stopped', '^done,a=["1",b="2"]', '^done,{a="1"}', '~"raw\x01byte"',
    ],
)
def test_rejects(line: str) -> None:
    with pytest.raises(GrammarError):
        parse_record(line)


def test_client_rules() -> None:
    assert check_transcript(['^error,code="x",msg="y"', "(gdb) "])
    assert check_transcript(['^done,key1="x"', "(gdb) "])  # Emacs keys have no digits
    assert check_transcript(['^done', '=thread-created,id="1"'])  # no prompt after the result
    assert check_transcript(['*stopped,frame={file="a.c",line="3"}'])  # no fullname
    assert not check_transcript(["^running", '*running,thread-id="all"', "(gdb) ", "program output"],
                                ["program output"])


def test_real_gdb_transcripts_validate() -> None:
    if not REFERENCE.is_dir():
        pytest.skip("the gdb reference transcripts (../shared/reference/gdb-mi) are not in this checkout")
    for path in sorted(REFERENCE.glob("*.txt")):
        lines = []
        for raw in path.read_text(encoding="utf-8").splitlines():
            if raw.startswith("<- ") and not raw.startswith("<- (raw)"):
                lines.append(raw[3:].removesuffix("|"))
        program = [line for line in lines if line[:1] not in "^*=~@&(" and not line[:1].isdigit()]
        # gdb writes ESC as \e, which this checker (preferring \033 for Emacs) refuses.
        lines = [line for line in lines if "\\e" not in line]
        assert check_transcript(lines, program) == [], path.name
