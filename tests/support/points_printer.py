"""A C++ program with its own printer script beside it (PROG-gdb.py, as gdb auto-loads it
from a safe path), for the auto-load safe path's tests over each front end."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.build_more import find_cxx

SOURCE = """\
struct Point { int x, y; };
int main() {
  Point pt{1, 2};
  return pt.x - 1;  // stop here
}
"""
STOP = 4  # the line after pt is set
PRINTER = """\
import gdb
class PointPrinter:
    def __init__(self, value):
        self.value = value
    def to_string(self):
        return "Point(%d, %d)" % (int(self.value["x"]), int(self.value["y"]))
def lookup(value):
    if value.type.strip_typedefs().tag == "Point":
        return PointPrinter(value)
gdb.current_objfile().pretty_printers.append(lookup)
"""
DECLINED = "auto-loading has been declined"


def build_points(directory: Path) -> Path:
    """points (and points.cpp) built in `directory`, points-gdb.py beside it."""
    cxx = find_cxx()
    assert cxx is not None
    source = directory / "points.cpp"
    source.write_text(SOURCE)
    built = directory / "points"
    subprocess.run([cxx, "-g", "-O0", "-o", str(built), str(source)], check=True)
    (directory / "points-gdb.py").write_text(PRINTER)
    return built
