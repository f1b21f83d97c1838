/* Lines whose code the compiler splits into several address blocks, for `next` and `step`
   against gdb: a for loop (its test after the body), a while loop, a `?:` whose arms are
   separate blocks of one line, and a statement spread over several lines. Also a caller
   without line info (assembly) that a `next` returns into. */
#include <stdio.h>

static volatile int seed = 3; /* read at run time: -O2 cannot fold the loops away */

__attribute__((noinline)) int twice(int v) {
    return v * 2; /* @bp:twice */
}

__attribute__((noinline)) int plus(int a, int b) {
    return a + b;
}

__attribute__((noinline)) int for_loop(int n) {
    int sum = 0; /* @bp:for_first */
    for (int i = 0; i < n; i++) { /* @bp:for_head */
        sum += twice(i);
    }
    return sum; /* @bp:for_done */
}

__attribute__((noinline)) int while_loop(int n) {
    int k = 0; /* @bp:while_first */
    while (k < n) {
        k += seed;
    }
    return k;
}

__attribute__((noinline)) int pick(int a, int b) {
    int r = a > b ? twice(a) : plus(a, b); /* @bp:ternary */
    r += a < b ? a : b;
    return r;
}

__attribute__((noinline)) int spread(int a) {
    int total = plus(a, /* @bp:spread */
                     twice(a)) +
                plus(twice(a + 1),
                     a);
    return total;
}

/* Calls fn(); no line info, but CFI so that frames unwind through it. */
__asm__(".pushsection .text.nolines,\"ax\",@progbits\n"
        ".globl call_back\n"
        ".type call_back, @function\n"
        "call_back:\n"
        "    .cfi_startproc\n"
        "    sub $8, %rsp\n"
        "    .cfi_def_cfa_offset 16\n"
        "    call *%rdi\n"
        "    add $8, %rsp\n"
        "    .cfi_def_cfa_offset 8\n"
        "    ret\n"
        "    .cfi_endproc\n"
        ".size call_back, .-call_back\n"
        ".popsection\n");
int call_back(int (*fn)(void));

__attribute__((noinline)) int callback(void) {
    return seed + 1; /* @bp:callback */
}

int main(void) {
    int n = seed;
    int f = for_loop(n); /* @bp:call_for */
    int w = while_loop(n + 4);
    int p = pick(n, 1) + pick(1, n);
    int s = spread(n);
    int c = call_back(callback);
    printf("%d %d %d %d %d\n", f, w, p, s, c);
    return 0;
}
