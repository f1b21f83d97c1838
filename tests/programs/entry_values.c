/* Entry values at -O2: parameters the callee no longer keeps, known from the caller's
   DW_TAG_call_site_parameter (gdb's x=x@entry=5, x@entry=5). */
#include <stdio.h>

volatile int sink;

__attribute__((noinline)) int lost(int x, int y)
{
    sink = y; /* @bp:lost */
    return sink;
}

__attribute__((noinline)) int changed(int x)
{
    x = x * 3 + sink;
    sink = x; /* @bp:changed */
    return x + 1;
}

__attribute__((noinline)) int kept(int x)
{
    sink = x; /* @bp:kept */
    return x + sink;
}

int main(void)
{
    int base = sink + 5;
    int total = lost(5, base);
    total += lost(base, 7);
    total += changed(base);
    total += kept(4);
    printf("%d\n", total);
    return 0;
}
