/* NAME@entry in expressions (gdb's `print x@entry`): parameters known from the caller's
   call site at -O2, one the caller cannot give (a call's result), and names that are
   no parameters: a local, a global. At -O0 there are no call sites at all. */
#include <stdio.h>

volatile int sink;
int counter = 3;

__attribute__((noinline)) int opaque(void)
{
    return sink + 11;
}

__attribute__((noinline)) int scaled(int a1, int a2)
{
    int local = a1 * sink;
    a1 = a1 * 3 + sink;
    sink = a1 + a2 + local; /* @bp:scaled */
    return a1 + 1;
}

__attribute__((noinline)) int unknown(int a1)
{
    sink = a1; /* @bp:unknown */
    return sink;
}

int main(void)
{
    int total = scaled(5, sink + 7);
    total += unknown(opaque());
    printf("%d %d\n", total, counter);
    return 0;
}
