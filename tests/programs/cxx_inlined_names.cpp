// -O2: a method and a template inlined into work(); gdb names the inlined frames by their
// own symbols (`ns::Acc::add`, `sq<int>`), the pc by the function holding the code.
#include <vector>
namespace ns {
struct Acc {
  int total = 0;
  void add(int x) { total += x * 3; }
  int get() const { return total; }
};
}  // namespace ns
template <typename T> static T sq(T x) { return x * x; }
volatile int g;
__attribute__((noinline)) int work(std::vector<int> &v) {
  ns::Acc a;
  for (int x : v) a.add(sq(x) + g);
  return a.get();
}
int main(int argc, char **) {
  std::vector<int> v{1, 2, 3, argc};
  return work(v) == 0;
}
