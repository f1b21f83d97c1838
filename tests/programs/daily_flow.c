/* Breakpoint scripts and run control users type daily (save breakpoints, continue N,
   until, advance, finish from an outer frame, commands), compared with gdb 13. */
#include <stdio.h>

int total;

int depth(int n) {
    if (n <= 0) /* @bp:depth */
        return 0;
    int below = depth(n - 1); /* @bp:recurse */
    return below + n; /* @bp:unwind */
}

void add(int value) {
    total += value; /* @bp:add */
}

int square(int x) {
    int result = x * x; /* @bp:square */
    return result;
}

int main(void) {
    for (int i = 0; i < 6; i++) { /* @bp:loop_head */
        add(i); /* @bp:loop */
    }
    int deep = depth(3); /* @bp:call_depth */
    int sq = square(deep); /* @bp:call_square */
    printf("total=%d deep=%d sq=%d\n", total, deep, sq); /* @bp:done */
    return 0;
}
