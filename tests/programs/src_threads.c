/* Two threads: while the main thread steps over a slow call, the worker hits a breakpoint. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static volatile int go;
static volatile int worker_hits;

__attribute__((noinline)) void worker_hit(void) {
    worker_hits++; /* @bp:worker_hit */
}

static void *worker(void *arg) {
    (void)arg;
    while (!go) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    worker_hit();
    return NULL;
}

__attribute__((noinline)) int release_and_wait(void) {
    go = 1;
    struct timespec pause = {0, 300000000};
    nanosleep(&pause, NULL); /* the worker hits its breakpoint meanwhile */
    return 1;
}

int main(void) {
    pthread_t thread;
    pthread_create(&thread, NULL, worker, NULL);
    int released = release_and_wait(); /* @bp:step_over_slow */
    pthread_join(thread, NULL); /* @bp:after_slow */
    printf("released=%d hits=%d\n", released, worker_hits);
    return 0;
}
