// Functions whose DWARF symbols gdb names its own way (dwarf2_physname): with a linkage
// name (demangled, a template's return type dropped) or without one (computed: main,
// extern "C", static and anonymous-namespace functions, local classes, lambdas).
#include <functional>
#include <string>

namespace ns {
struct K {
  int v;
  int get(const std::string &s, int &r) { return v + (int)s.size() + r; /* @bp:get */ }
  int cget() const { return v; /* @bp:cget */ }
  int over(int x) { return x; /* @bp:over_int */ }
  int over(double x) { return (int)x; /* @bp:over_double */ }
};
namespace {
int anon(const std::string &s) { return (int)s.size(); /* @bp:anon */ }
}
int infn(int x) { return x + 1; /* @bp:infn */ }
}  // namespace ns

extern "C" int ext(const char *s, int *p) { return s[0] + *p; /* @bp:ext */ }
static int stat(long x, ...) { return (int)x; /* @bp:stat */ }
template <typename T, int N> T tmpl(T x) { return x + N; /* @bp:tmpl */ }
int twice(int x) { return 2 * x; /* @bp:twice */ }

int main(int argc, char **argv) {
  struct Local {
    int m(const char *p) { return p[0]; /* @bp:local */ }
  };
  Local l;
  ns::K k{1};
  int r = 2;
  std::function<int(int)> f = [](int x) {
    return x + 1; /* @bp:lambda */
  };
  int (*fp)(int) = twice;
  int (ns::K::*mp)(const std::string &, int &) = &ns::K::get;
  int s = f(3) + fp(2) + k.get("ab", r) + k.cget() + k.over(1) + k.over(2.0);  /* @bp:calls */
  s += ns::anon("x") + ns::infn(2) + ext("a", &r) + stat(3, 4) + tmpl<long, 2>(5) + l.m("b");
  return (k.*mp)("x", r) == s + argc + (argv == nullptr);
}
