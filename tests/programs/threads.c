/* Eight named worker threads; each calls worker_hit() exactly once. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 8

static pthread_barrier_t named;
volatile int hits; /* global: watched by the tests */

__attribute__((noinline)) void worker_hit(int idx) {
    __sync_fetch_and_add(&hits, 1); /* @bp:worker_hit */
    (void)idx;
}

static void *worker(void *arg) {
    int idx = (int)(long)arg;
    char name[16];
    snprintf(name, sizeof name, "worker-%d", idx);
    pthread_setname_np(pthread_self(), name);
    pthread_barrier_wait(&named); /* every thread is named before any hit */
    worker_hit(idx);
    return NULL;
}

int main(void) {
    pthread_t tids[NTHREADS];
    pthread_barrier_init(&named, NULL, NTHREADS);
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&tids[i], NULL, worker, (void *)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(tids[i], NULL);
    printf("hits=%d\n", hits);
    return 0;
}
