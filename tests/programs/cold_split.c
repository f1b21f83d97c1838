/* gcc -O2 splits f: the branch to the cold function `report` goes to f.cold, a part of
   f in .text.unlikely (DW_AT_ranges: f's block is two ranges, its entry's first). */
#include <stdio.h>
#include <stdlib.h>

volatile int sink;

__attribute__((cold, noinline)) void report(int i)
{
    fprintf(stderr, "too many %d\n", i);
}

__attribute__((noinline)) int f(int x)
{
    int total = 0;
    for (int i = 0; i < x; i++) {
        if (i > 1000000) {
            report(i); /* @bp:cold */
            sink = i;
            exit(2);
        }
        total += i * sink;
    }
    return total;
}

int main(int argc, char **argv)
{
    (void)argv;
    return f(argc + 3) & 1;
}
