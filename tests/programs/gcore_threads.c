/* gcore of a live stop: worker 1 hits a breakpoint once the other workers block on a mutex
 * and main waits to join it, each thread in a frame of its own with locals, every one at a
 * place that a second run reaches again (gdb's live view and its gcore compare with ours). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NWORKERS 3

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static int waiting = 0;
long total = 0;
double scale = 2.5;

__attribute__((noinline)) long report(long index, long squared) {
    long sum = index + squared;
    total += sum; /* @bp:report */
    return sum;
}

static void *worker(void *arg) {
    long index = (long)arg;
    long squared = index * index;
    if (index == 1) {
        while (__atomic_load_n(&waiting, __ATOMIC_SEQ_CST) < NWORKERS - 1)
            usleep(1000);
        usleep(200000); /* time for the others to block in the mutex */
        report(index, squared);
        return (void *)squared;
    }
    __atomic_add_fetch(&waiting, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&gate); /* @bp:blocked */
    pthread_mutex_unlock(&gate);
    return (void *)squared;
}

int main(void) {
    pthread_t threads[NWORKERS];
    int count = NWORKERS;
    pthread_mutex_lock(&gate);
    for (long i = 0; i < NWORKERS; i++)
        pthread_create(&threads[i], NULL, worker, (void *)i);
    pthread_join(threads[1], NULL); /* @bp:join */
    pthread_mutex_unlock(&gate);
    for (int i = 0; i < count; i += 2)
        pthread_join(threads[i], NULL);
    printf("total=%ld scale=%g\n", total, scale);
    return 0;
}
