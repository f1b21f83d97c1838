/* A function called N times (argv[1], default 100000): the breakpoint-hit benchmark's target. */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) int hit_target(int i)
{
    sink += i; /* trivial work so that the call is kept */
    return i & 1;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    long odd = 0;
    for (long i = 0; i < n; i++)
        odd += hit_target((int)i);
    printf("calls=%ld odd=%ld\n", n, odd);
    return 0;
}
