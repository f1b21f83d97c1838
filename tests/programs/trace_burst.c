/* A burst of calls of leaf functions for jump-patch tracing's bulk path: argv[1] calls of
 * leaf() (integers of each width and sign, a pointer or NULL, a negative return: text made
 * by SQLite), of wide() (a double and a char: text made in Python) and of tick() (no
 * arguments, no value), then one of quiet() (another traced function after the runs).
 * Prints how many calls of leaf it made. */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) int leaf(int i, unsigned short u16, short s16, unsigned u32, const long *p)
{
    sink += i + u16 + s16 + u32 + (p != 0);
    return -i;
}

__attribute__((noinline)) double wide(double d, char c)
{
    sink += c;
    return d / 2;
}

__attribute__((noinline)) void tick(void)
{
    sink++;
}

__attribute__((noinline)) void quiet(long n)
{
    sink += n;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long calls = 0;
    for (long i = 0; i < n; i++) {
        leaf((int)(i * 2654435761u), (unsigned short)(i * 7), (short)-i, (unsigned)(i * 40503u), i & 1 ? &n : 0);
        calls++;
    }
    for (long i = 0; i < n; i++)
        wide(i * 0.25, (char)('a' + i % 26));
    for (long i = 0; i < n; i++)
        tick();
    quiet(n);
    printf("calls=%ld\n", calls);
    return 0;
}
