// C++ functions for `break FUNCTION` against gdb's prologue skip
// (tests/integration/test_prologue_skip.py): methods, constructors, operators, templates.
volatile int sink;

struct Counter {
  int count;
  explicit Counter(int start) : count(start) { sink = start; }
  __attribute__((noinline)) int bump(int by)
  {
    int before = count;
    count += by;
    return before;
  }
  __attribute__((noinline)) static int twice(int x) { return 2 * x; }
  __attribute__((noinline)) virtual int value() const { return count; }
  __attribute__((noinline)) Counter &operator+=(int by)
  {
    count += by;
    return *this;
  }
  virtual ~Counter() { sink = count; }
};

template <typename T> __attribute__((noinline)) T biggest(T a, T b)
{
  T result = a > b ? a : b;
  return result;
}

int main(int argc, char **argv)
{
  Counter counter(argc);
  counter.bump(2);
  counter += 3;
  int total = Counter::twice(counter.value()) + biggest(argc, 4) + (int)biggest(1.5, 2.5);
  return total + (argv[0] == nullptr);
}
