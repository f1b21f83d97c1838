/* Built -O1/-O2 as a shared library: gcc's IPA register allocation knows the static
   noinline callees keep the argument registers, so a caller's parameter stays in rdi,
   rsi, rdx across its call (DW_OP_reg5 over the call) and gdb reads it in the outer frame
   from the callee's registers (the CFI leaves them unspecified: same value). */
__attribute__((noinline)) static int hidden(int x) { return x * 3; }
__attribute__((noinline)) static int hidden2(int a, int b, int c) { return a * b + c; }
__attribute__((noinline)) static long keep(long x) { __asm__ volatile("" ::: "rbx"); return x + 1; }

int lib2(int v) { return hidden(v) + 1; }
int multi(int a, int b, int c) { return hidden2(a, b, c) + 1; }
int after(int v) { int r = hidden(v); return r + v; }
long inrbx(long v) { long r = keep(v); r += keep(r); return r * v; }
