/* Breakpoint sites whose first instructions write memory, for jump patches (their
   displaced copy runs them): each must run once per arrival, or a value differs from
   gdb's at the next stop; at -O2 tick's add to memory (RIP-relative) is displaced. */
#include <stdio.h>

long ticks; /* not volatile: -O2 counts with one add to memory */

__attribute__((noinline)) void tick(long by) {
    ticks += by; /* @bp:tick */
}

int main(void) {
    long seen = 0;
    int total = 0;
    for (int round = 0; round < 4; round++) {
        total++; /* @bp:total */
        tick(round + 1);
        seen += ticks;
    }
    printf("seen=%ld ticks=%ld total=%d\n", seen, ticks, total);
    return 0;
}
