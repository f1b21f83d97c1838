/* Runs until killed (at most 120 s): prints a tick counter every 20 ms. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long ticks;

__attribute__((noinline)) void tick(void) {
    ticks++; /* @bp:tick */
    printf("tick %lu\n", ticks);
    fflush(stdout);
}

int main(void) {
    time_t start = time(NULL);
    while (time(NULL) - start < 120) {
        tick();
        usleep(20000);
    }
    return 0;
}
