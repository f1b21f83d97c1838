/* Busy loop without syscalls for at most 5 seconds (a target for interrupt). */
#include <stdio.h>
#include <time.h>

volatile unsigned long spins;

__attribute__((noinline)) void spin_once(void) {
    spins++; /* @bp:spin */
}

int main(void) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        for (int i = 0; i < 100000; i++) spin_once();
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (now.tv_sec - start.tv_sec < 5);
    printf("spins=%lu\n", spins);
    return 0;
}
