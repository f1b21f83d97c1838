/* Built at -O2: values the optimizer dropped must read as "optimized out", never garbage. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int consume(int v) {
    __asm__ volatile("" ::: "memory");
    return v * 2 + 1;
}

__attribute__((noinline)) int work(int seed) {
    int first = seed * 7;
    int mid = consume(first);
    int last = consume(mid + seed);
    return last + 3; /* @bp:opt_after */
}

int main(int argc, char **argv) {
    int seed = argc > 1 ? atoi(argv[1]) : 5;
    int result = work(seed);
    printf("result=%d\n", result);
    return 0;
}
