/* Starts argv[1] threads (default 1000) that block on a condition variable, then calls
   hit() argv[2] times (default 1000): the benchmark breaks on hit() with every thread alive. */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t release = PTHREAD_COND_INITIALIZER;
static int started;
static int done;
static volatile int counter;

static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    started++;
    pthread_cond_signal(&started_cond);
    while (!done)
        pthread_cond_wait(&release, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

void hit(int round) {
    counter += round; /* @bp:hit */
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 1000;
    int rounds = argc > 2 ? atoi(argv[2]) : 1000;
    pthread_t *threads = calloc((size_t)count, sizeof *threads);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (int i = 0; i < count; i++)
        pthread_create(&threads[i], &attr, worker, NULL);
    pthread_mutex_lock(&lock);
    while (started < count)
        pthread_cond_wait(&started_cond, &lock);
    pthread_mutex_unlock(&lock);
    for (int round = 0; round < rounds; round++)
        hit(round);
    pthread_mutex_lock(&lock);
    done = 1;
    pthread_cond_broadcast(&release);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < count; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    return 0;
}
