/* Entry values of an inlined call's parameters (gcc -O2). gdb reads an inline frame's
   parameter where its real function starts (get_frame_func) and takes the value from
   the call site of that real function: late's inlined body starts after other code,
   so it has none there; early's starts at the function's first instruction, in the
   register the caller's call site names. */
#include <stdio.h>

volatile int sink;

static inline __attribute__((always_inline)) int late_body(int x, int y)
{
    for (int i = 0; i < y; i++)
        sink = x + i;
    sink = x * y; /* @bp:late */
    return sink;
}

__attribute__((noipa)) int late(int a, int b)
{
    sink = a;
    sink = b;
    return late_body(b + 1, a);
}

static inline __attribute__((always_inline)) int early_body(int x)
{
    sink = x; /* @bp:early */
    return sink + x;
}

__attribute__((noipa)) int early(int a)
{
    return early_body(a) + 1;
}

int main(void)
{
    int r = late(3, 4);
    r += early(5);
    printf("%d\n", r);
    return 0;
}
