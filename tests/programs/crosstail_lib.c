/* Built -O2 as a shared library: f reaches itself through f2's tail call, so gdb trusts
   no entry value of f, even one an -O2 main's call site (another module) would give. */
__attribute__((noinline)) static int hidden(int x) { return x * 3; }
int f2(int n);
int f(int n) { if (n > 10) return f2(n - 1); return hidden(n) + n; }
int f2(int n) { return f(n - 2); }
