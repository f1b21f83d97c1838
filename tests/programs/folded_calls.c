/* gcc -O2 folds twin_b into twin_a (identical code folding): the call of twin_b names a
   function without code, so gdb finds no entry value there (tests/integration/test_folded_calls.py). */
volatile long long sink;

__attribute__((noinline)) long long twin_a(unsigned int x) {
  return x * 3 + 1; /* @bp:twin */
}

static __attribute__((noinline)) long long twin_b(unsigned int y) {
  return y * 3 + 1;
}

int main(void) {
  sink += twin_a(4294967295U);
  sink += twin_b(3934847389U);
  return 0;
}
