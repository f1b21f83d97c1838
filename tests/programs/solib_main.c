/* Calls into its own shared library (lib_solib.c) and libc. */
#include <stdio.h>

int solib_step(int x);

int main(void) {
    int total = solib_step(1); /* @bp:first */
    total += solib_step(2);
    printf("%d\n", total);
    return 0;
}
