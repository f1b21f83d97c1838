/* A worker that counts while it runs, for gdb's scheduler-locking: with the lock, stepping
   or continuing main leaves the worker stopped, so its count does not move. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

volatile unsigned long spins;
volatile int ready;

static void *spin(void *arg) {
    ready = 1;
    for (;;)
        spins++;
    return arg;
}

int main(void) {
    pthread_t worker;
    pthread_create(&worker, NULL, spin, NULL);
    while (!ready)
        usleep(1000);
    usleep(10000); /* @bp:ready */
    usleep(10000);
    usleep(10000);
    usleep(10000); /* @bp:later */
    usleep(10000);
    printf("%lu\n", spins > 0);
    return 0;
}
