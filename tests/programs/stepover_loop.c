/* Step-overs over a stub: test_remote_stepover.py watches the stack slot mix's argument
   is stored to, with a breakpoint on the store, and continues: the watchpoint stops it
   there. The exit status is the loop's sum. */
#include <stdlib.h>

__attribute__((noinline)) long mix(long a, int b)
{
    long c = a * 3 + b;
    return c ^ (c >> 3);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5;
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += mix(sum + i, i);
    return (int)(sum & 0x7f);
}
