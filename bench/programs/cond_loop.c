/* A loop whose body line carries a conditional breakpoint that is never true. It prints the
 * passes it made at the end, for the dprintf runs to check their messages against. */
#include <stdio.h>
#include <stdlib.h>
volatile long sink;
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    int i;
    for (i = 0; i < n; i++) {
        sink += i; /* @bp:loop */
    }
    printf("passes=%d\n", i);
    return 0;
}
