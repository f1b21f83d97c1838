/* A loop whose body line carries a conditional breakpoint that is never true. */
#include <stdlib.h>
volatile long sink;
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    for (int i = 0; i < n; i++) {
        sink += i; /* @bp:loop */
    }
    return 0;
}
