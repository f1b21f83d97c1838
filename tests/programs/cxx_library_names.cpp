// C++ names found in libstdc++ without its debug info: `break flush` / `break write` are
// set at libstdc++'s methods (by their demangled symbols), the PLT stubs calling them, and
// the program's own functions of those names (by their DWARF).
#include <iostream>
#include <vector>

struct Sink {
  int n = 0;
  void flush() { n++; }
  void write(int v) { n += v; }
};

namespace ns {
int flush(int x) { return x + 1; }
}

int main() {
  Sink sink;
  sink.write(3);
  sink.flush();
  std::vector<int> values{1, 2};
  values.push_back(ns::flush(4));
  std::cout << "values " << values.size();
  std::cout.flush();
  std::cout.write("!\n", 2);
  return sink.n;
}
