/* An inlined call whose code an address breakpoint points into: gdb names the place by
   the inlined function. */
#include <stdio.h>

static inline __attribute__((always_inline)) int twice(int x) {
    int y = x * 2; /* @bp:inside */
    return y + 1;
}

int main(int argc, char **argv) {
    int r = twice(argc);
    printf("%d %s\n", r, argv[0]);
    return 0;
}
