"""gdb's `ptype/o` (offsets, sizes, holes, padding, total sizes) and its other type flags,
compared with gdb 13 on the same programs: C structs with holes, bitfields, nested and
anonymous structs and unions, a typedef named alone, pointers, hex offsets (`/ox`); C++
classes with bases (virtual ones too), a vtable, statics, access labels, a class's own
typedef, class templates (`[with T = int]`, members of a parameter's type named by it) and
a std::string member written out. The
flags gdb refuses are refused in its words."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

C_SOURCE = r"""
#include <sys/stat.h>
typedef struct { int a; char b; } pair_t;
struct E {};
struct bits { char c; int a : 3; int b : 7; unsigned u : 20; long l; short s; };
struct inner { char x; double d; };
union un { int i; char c[5]; struct inner in; };
struct outer { char tag; struct inner in; union un u; struct { short p; int q; } anon;
               union { char z; long w; }; char tail[3]; struct E e; pair_t pr;
               struct { int q : 3; } *anon_ptr; };
struct V { char a; int :0; char b; int z : 4; unsigned long long big : 40; };
struct stat st; struct bits b; struct outer o; union un u; struct V v; pair_t gp;
int main(void) { return stat("/", &st) + b.a + o.tag + u.i + v.a + gp.a; }
"""

CXX_SOURCE = r"""
#include <string>
struct Base { virtual ~Base() {} int b; };
struct Empty {};
class Derived : public Base {
 public:
  typedef int myint;
  Derived() : c(0), x(1), y(2) {}
  int get() const { return x; }
  static int count;
  char c;
  myint x;
  double y;
 private:
  short s = 0;
};
int Derived::count = 3;
struct WithEmpty : Empty { char k; long m; };
struct A { int a; virtual void f() {} };
struct B : virtual A { char b; };
struct C : virtual A { long c; };
struct D : B, C { short d; };
template <typename T> struct Box { T value; char tag; static const int k = 3; };
class Named { std::string name; int id; protected: double w; };
struct Outer { struct Inner { int x; char y; } in; int z; Box<double> box; Box<char> chars; };
int main() {
  Derived d; WithEmpty w{}; D dd; Box<int> bi{}; Named n; Outer o{};
  return d.get() + w.k + dd.d + bi.value + o.z;
}
"""


def _build(tmp_path: Path, name: str, source: str, compiler: str) -> Path:
    path = shutil.which(compiler)
    if path is None:
        pytest.skip(f"{compiler} not installed")
    (tmp_path / name).write_text(source)
    program = tmp_path / name.split(".")[0]
    subprocess.run([path, "-g", "-O0", "-o", str(program), str(tmp_path / name)], check=True)
    return program


def test_ptype_offsets_of_c_structs_like_gdb(tmp_path: Path) -> None:
    program = _build(tmp_path, "layout.c", C_SOURCE, "gcc")
    got = assert_like_gdb([*ex("ptype/o struct stat", "ptype/o struct bits", "ptype/o struct outer",
                               "ptype/o union un", "ptype/o struct V", "ptype/o struct E", "break main", "run",
                               "ptype/o pair_t", "ptype/o gp", "ptype/o &st", "ptype/ox b", "ptype/o/x b",
                               "ptype/xd b", "ptype/o int", "whatis/o b", "ptype/mtTMr b"),
                           str(program)], tmp_path)  # fmt: skip
    assert "/* total size (bytes):  144 */" in got.stdout
    assert "/* XXX  6-bit hole       */" in got.stdout


@pytest.mark.parametrize("command", ["ptype/q b", "ptype/", "ptype/o", "whatis/", "ptype/ b"])
def test_ptype_flags_refused_like_gdb(tmp_path: Path, command: str) -> None:
    program = _build(tmp_path, "layout.c", C_SOURCE, "gcc")
    assert_like_gdb([*ex("break main", "run", command), str(program)], tmp_path)


def test_ptype_offsets_of_cplus_classes_like_gdb(tmp_path: Path) -> None:
    program = _build(tmp_path, "classes.cc", CXX_SOURCE, "g++")
    got = assert_like_gdb([*ex("break main", "run", "ptype/o Derived", "ptype/o WithEmpty", "ptype/o Base",
                               "ptype/o d", "ptype/o D", "ptype/o Box<int>", "ptype/o Named", "ptype/o Outer",
                               "ptype/o &o", "ptype/ox Box<char>"), str(program)], tmp_path)  # fmt: skip
    assert "private:" in got.stdout
    assert "struct Box<int> [with T = int] {" in got.stdout and "    T value;" in got.stdout
