/* A function called a few times, for dprintfs in each dprintf-style (gdb's dprintf.c). */
#include <stdio.h>

static int g;

static void foo(int arg) {
    g += arg; /* @bp:foo_body */
}

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0); /* a call-style dprintf's text at once, as on a terminal */
    for (int i = 0; i < 6; i++) {
        foo(1000 + i); /* @bp:call */
    }
    printf("done %d\n", g);
    return 0;
}
