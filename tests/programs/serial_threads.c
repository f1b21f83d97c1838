/* Eight threads started one after another (each joined before the next starts); each
   increments global_counter once, so the writes never overlap. */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 8

volatile int global_counter;

static void *worker(void *arg) {
    (void)arg;
    global_counter++; /* @bp:write */
    return NULL;
}

int main(void) {
    for (int i = 0; i < NTHREADS; i++) {
        pthread_t tid;
        pthread_create(&tid, NULL, worker, NULL);
        pthread_join(tid, NULL);
    }
    printf("counter=%d\n", global_counter);
    return 0;
}
