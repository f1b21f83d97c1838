/* The gdb console's run commands, breakpoint table and scripts under DAP and the agent. */
#include <stdio.h>

static int counter;

static int inner(int v) {
    int w = v * 2; /* @bp:inner */
    counter += w;
    return w + 1;
}

static int outer(int v) {
    int r = inner(v) + 3; /* @bp:outer */
    return r * 2; /* @bp:outer_ret */
}

int main(void) {
    int total = 0;
    for (int i = 0; i < 3; i++) { /* @bp:loop */
        total += outer(i); /* @bp:call */
    }
    total += 1; /* @bp:after_loop */
    printf("total %d counter %d\n", total, counter); /* @bp:print */
    return 0;
}
