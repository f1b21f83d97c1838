/* Code and data addresses gcc names its own way at -O2: a function folded into an
   identical one (-fipa-icf: twin_b's code is twin_a's), a copy made for constant arguments
   (scaled.constprop.0) and a function's static (calls.0). */
#include <stdio.h>

volatile long long g_sink;
int *count_ptr;

__attribute__((noinline)) static long long twin_a(signed char a)
{
    return a * 3 + 1;
}

__attribute__((noinline)) long long twin_b(signed char a)
{
    return a * 3 + 1;
}

__attribute__((noinline)) void leaf(int v)
{
    g_sink += v; /* @bp:leaf */
}

__attribute__((noinline)) static int scaled(int x, int factor)
{
    volatile int v = x * factor;
    leaf(v);
    return v + factor;
}

static int counted(int k)
{
    static int calls;
    calls += k;
    count_ptr = &calls;
    return calls;
}

int main(int argc, char **argv)
{
    (void)argv;
    g_sink += counted(argc);
    g_sink += twin_a(-52) + twin_b((signed char)(argc - 40));
    g_sink += scaled(argc, 7) + scaled((int)g_sink, 7);
    printf("%lld\n", (long long)g_sink);
    return 0;
}
