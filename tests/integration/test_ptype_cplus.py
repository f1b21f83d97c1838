"""gdb's `ptype` of a C++ class, which printed only the class's name: its body as gdb 13
writes it, against gdb on the same program: access labels, statics, methods (constructors,
a destructor, const, virtual, static, operators, a conversion, varargs), the typedefs the
class declares named inside it, class templates (`[with T = int]`, `T item`, bases named
through the parameters), the type printers' names of member types (std::string), the
flags /m /M /t /T /r, pointers to classes, std::vector's raw body (ptype/r), and C++
enums with their underlying type (`enum class Mode : unsigned char {Mode::A, Mode::B}`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = r"""
#include <string>
#include <vector>
struct S { int a; void f(); static int g(int, char); };
void S::f() {}
int S::g(int, char) { return 0; }
struct Base { virtual ~Base() {} int b; };
class K : public Base {
  int priv;
 public:
  typedef long size_type;
  K() : priv(0) {}
  K(int p) : priv(p) {}
  ~K() {}
  int get() const { return priv; }
  virtual void v(double, ...) {}
  operator bool() const { return priv != 0; }
  K &operator=(const K &) = default;
  bool operator==(const K &o) const { return priv == o.priv; }
  static K make() { return K(); }
  std::string name() const { return "k"; }
  std::string label;
 protected:
  size_type n = 0;
 private:
  typedef char tiny;
  tiny t = 0;
};
template <typename T> struct Holder { T item; T get() const { return item; } void set(T x) { item = x; } };
template <typename T, typename U> struct Pair : Holder<T>, Holder<U *> { U u; };
struct Empty {};
enum Color { RED, GREEN = 5 };
enum class Mode : unsigned char { A, B };
union U2 { int i; float f; };
struct Mixed { struct In { int q; } in; union { int ui; char uc; }; int (*fp)(int, char); unsigned bf : 3;
               Color c; Mode m; Mixed *next; };
int main() {
  Mixed mixed{}; U2 u2{};
  S s{}; s.f(); K k(1); Holder<int> h{}; h.set(2); Pair<int, char> p{}; Empty e; std::vector<int> v{1};
  (void) e;
  return k.get() + (bool) k + h.get() + S::g(1, 'a') + (k == k) + (int) k.name().size() + p.u + v[0]
         + mixed.in.q + u2.i;
}
"""


def test_ptype_of_cplus_classes_like_gdb(tmp_path: Path) -> None:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not installed")
    (tmp_path / "classes.cc").write_text(SOURCE)
    program = tmp_path / "classes"
    subprocess.run([gxx, "-g", "-O0", "-o", str(program), str(tmp_path / "classes.cc")], check=True)
    got = assert_like_gdb([*ex("ptype struct S", "break main", "run", "ptype s", "ptype struct S", "ptype K",
                               "ptype Base", "ptype/m K", "ptype/t K", "ptype/mM K", "ptype/tT K", "ptype/r K",
                               "ptype k", "ptype &k", "ptype Holder<int>", "ptype p", "ptype/r p", "ptype Empty",
                               "whatis k", "ptype v", "ptype/r v", "ptype Color", "ptype Mode", "ptype mixed",
                               "ptype union U2", "ptype Mixed::In", "ptype mixed.m"), str(program)],
                          tmp_path)  # fmt: skip
    assert "    int get(void) const;" in got.stdout
    assert "type = struct Pair<int, char> [with T = int, U = char] : public Holder<T>, public Holder<U*> {" \
        in got.stdout


def test_a_class_of_the_frame_wins_over_a_static_elsewhere_like_gdb(tmp_path: Path) -> None:
    """`S` names the program's class at its frame, not a static `S` of another module
    (libm's has one in its debug info): gdb looks module by module."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not installed")
    (tmp_path / "classes.cc").write_text(SOURCE)
    program = tmp_path / "classes"
    subprocess.run([gxx, "-g", "-O0", "-o", str(program), str(tmp_path / "classes.cc")], check=True)
    got = assert_like_gdb([*ex("break main", "run", "ptype S", "whatis S", "p sizeof(S)", "whatis (S*)0",
                               "ptype U2", "p sizeof(U2)"), str(program)], tmp_path)  # fmt: skip
    assert "type = struct S {" in got.stdout


def test_incomplete_types_like_gdb(tmp_path: Path) -> None:
    """A struct only declared in the program (C) and a class only declared where it is used
    (std::cout's, C++) are written with gdb's `<incomplete type>`, not by name alone."""
    gcc, gxx = shutil.which("gcc"), shutil.which("g++")
    if gcc is None or gxx is None:
        pytest.skip("gcc and g++ are needed")
    (tmp_path / "opaque.c").write_text("struct opaque;\nstruct holder { struct opaque *p; int n; };\n"
                                       "int main(void) { struct holder h = {0, 1}; return h.n; }\n")
    (tmp_path / "out.cc").write_text("#include <iostream>\nint main() { std::cout << 1 << std::endl; return 0; }\n")
    subprocess.run([gcc, "-g", "-O0", "-o", str(tmp_path / "opaque"), str(tmp_path / "opaque.c")], check=True)
    subprocess.run([gxx, "-g", "-O0", "-o", str(tmp_path / "out"), str(tmp_path / "out.cc")], check=True)
    got = assert_like_gdb([*ex("break main", "run", "ptype h.p", "ptype *h.p", "whatis h.p", "ptype struct holder"),
                           str(tmp_path / "opaque")], tmp_path)  # fmt: skip
    assert "<incomplete type>" in got.stdout
    assert_like_gdb([*ex("break main", "run", "ptype/r std::cout", "ptype std::cout"), str(tmp_path / "out")],
                    tmp_path)
