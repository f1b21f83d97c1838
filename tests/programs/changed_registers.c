/* Registers that change from one stop to the next: each line moves known values through
   rax and the flags (set by arithmetic on constants, never by the stack pointer's, whose
   parity follows the environment's size), and twice() moves rsp, rbp and rip. */
#include <stdio.h>

volatile long sink;

__attribute__((noinline)) long twice(long x)
{
    long y = x + x; /* @bp:twice */
    return y;
}

int main(void)
{
    long a = 5;
    long b = a + 7;
    sink = b - 3; /* @bp:first */
    sink = twice(b);
    a = b - 12;
    printf("%ld\n", a + sink);
    return 0;
}
