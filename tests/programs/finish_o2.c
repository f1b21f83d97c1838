/* `finish` at -O2: a function whose first line is an inlined call (the breakpoint's stop
   hides it, so finish is out of the function, of its type), returning a small struct in
   registers, a double, and through a tail call. */
#include <stdio.h>

struct pair { int a; int b; };

volatile int sink;

static inline __attribute__((always_inline)) int scaled(int x)
{
    sink = x;
    return x * 3;
}

__attribute__((noinline)) double half_scaled(int y)
{
    int r = scaled(y + 1);
    return r / 2.0;
}

__attribute__((noinline)) struct pair make_pair(int a)
{
    struct pair p = { scaled(a), a + sink };
    return p;
}

__attribute__((noinline)) int twice(int x)
{
    sink = x;
    return x * 2 + sink;
}

__attribute__((noinline)) int tail(int x)
{
    sink = x + 1;
    return twice(x + 1);
}

int main(void)
{
    double h = half_scaled(sink + 2);
    struct pair p = make_pair(sink + 4);
    int t = tail(sink + 5);
    printf("%g %d %d %d\n", h, p.a, p.b, t);
    return 0;
}
