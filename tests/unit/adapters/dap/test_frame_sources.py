"""A frame's Source made once per file, and made anew once a substitute-path rule or a
source directory changes where the file is found."""

from __future__ import annotations

from pathlib import Path

from aliceserver.adapters.dap.shapes import FrameSources, frame_source_json
from aliceserver.debuggers.model import SourcePosition
from aliceserver.debuggers.sourcepaths import SourcePaths


def test_a_frame_source_follows_the_rules_of_the_moment(tmp_path: Path) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "p.c").write_text("int main(void) { return 0; }\n")
    position = SourcePosition(str(tmp_path / "built" / "p.c"), 1)
    paths, sources = SourcePaths(), FrameSources()
    first = sources.json(position, paths)
    assert first == frame_source_json(position, paths) and first["presentationHint"] == "deemphasize"
    assert sources.json(SourcePosition(position.path, 7), paths) is first  # the same file
    paths.add_rule(str(tmp_path / "built"), str(tmp_path / "here"))
    assert sources.json(position, paths) == {"name": "p.c", "path": str(tmp_path / "here" / "p.c")}
    paths.remove_rules(None)
    assert sources.json(position, paths) == first
