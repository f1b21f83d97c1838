/* Four threads hit one breakpoint together, many times, on a line whose first
   instruction (a locked add) the engine cannot emulate: every hit is stepped over while
   the other threads are held, and their own hits meanwhile are queued. */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4
#define CALLS 300

static pthread_barrier_t start;
volatile int total;

__attribute__((noinline)) void hot(int idx) {
    __sync_fetch_and_add(&total, 1); /* @bp:hot */
    (void)idx;
}

static void *worker(void *arg) {
    int idx = (int)(long)arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < CALLS; i++)
        hot(idx);
    return NULL;
}

int main(void) {
    pthread_t tids[NTHREADS];
    pthread_barrier_init(&start, NULL, NTHREADS);
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&tids[i], NULL, worker, (void *)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(tids[i], NULL);
    printf("total=%d\n", total);
    return 0;
}
