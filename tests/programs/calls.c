/* Loops and calls: a function called in a loop, a three-deep call chain, globals. */
#include <stdio.h>
#include <stdlib.h>

long global_value = 0x1122334455667788L;
char global_buf[64] = "alice-global-buffer";

__attribute__((noinline)) long oracle_probe(long a, const char *b) {
    return a + b[0]; /* @bp:oracle_probe */
}

__attribute__((noinline)) int add(int a, int b) {
    return a + b; /* @bp:add */
}

__attribute__((noinline)) int leaf(int x) {
    return x * 2; /* @bp:leaf */
}

__attribute__((noinline)) int mid(int x) {
    return leaf(x + 1) + 1;
}

__attribute__((noinline)) int top(int x) {
    return mid(x + 1) + 1;
}

int main(int argc, char **argv) {
    /* Before any I/O, so that registers and stack are deterministic here. */
    long probe = oracle_probe(0x1234, global_buf);
    int iterations = argc > 1 ? atoi(argv[1]) : 5;
    int sum = 0;
    for (int i = 0; i < iterations; i++) {
        sum = add(sum, i); /* @bp:loop */
    }
    printf("sum=%d\n", sum);
    printf("deep=%d\n", top(1));
    printf("global_value=%lx\n", global_value);
    printf("probe=%ld\n", probe);
    return 0;
}
