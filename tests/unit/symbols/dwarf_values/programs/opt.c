/* Built with -O2: variables that live in registers, in location lists, or nowhere. */
#include <stdio.h>
#include <stdlib.h>

struct pair { long a; long b; };

__attribute__((noinline)) long consume(long v) {
    __asm__ volatile("" : : "r"(v) : "memory");
    return v + 1;
}

static inline __attribute__((always_inline)) long scale(long v, long k) {
    long scaled = v * k;
    {
        long shadow = scaled + 1;
        consume(shadow); /* @bp:inl */
    }
    return scaled + k;
}

__attribute__((noinline)) long work(long n, long m) {
    long dead = n * 7; /* only used before the breakpoint */
    long kept = consume(dead);
    struct pair pr = {n + 1, m + 2};
    long total = 0;
    for (long i = 0; i < m; i++)
        total += consume(i * kept);
    consume(pr.a); /* @bp:opt */
    return scale(total, m) + pr.b;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 3;
    printf("%ld\n", work(n, n + 2));
    return 0;
}
