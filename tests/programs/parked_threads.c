/* Six threads wait in the same function, park(), with arguments that some of them share
   (pair, label) and some not (index, weight); main then calls all_parked(), marked.
   At that stop the frames of park() are at one place in the code for all six threads. */
#include <pthread.h>

#define NTHREADS 6

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t parked_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t release = PTHREAD_COND_INITIALIZER;
static int parked;
static int done;
static const char *const labels[2] = {"even", "odd"};
volatile int stops;

__attribute__((noinline)) void park(int index, int pair, const char *label, double weight) {
    pthread_mutex_lock(&lock);
    parked++;
    pthread_cond_signal(&parked_cond);
    while (!done)
        pthread_cond_wait(&release, &lock);
    pthread_mutex_unlock(&lock);
    (void)index, (void)pair, (void)label, (void)weight;
}

static void *worker(void *arg) {
    int index = (int)(long)arg;
    park(index, index / 2, labels[index % 2], index * 0.5);
    return NULL;
}

__attribute__((noinline)) void all_parked(void) {
    stops++; /* @bp:parked */
}

int main(void) {
    pthread_t threads[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&threads[i], NULL, worker, (void *)i);
    pthread_mutex_lock(&lock);
    while (parked < NTHREADS)
        pthread_cond_wait(&parked_cond, &lock);
    pthread_mutex_unlock(&lock);
    all_parked();
    pthread_mutex_lock(&lock);
    done = 1;
    pthread_cond_broadcast(&release);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(threads[i], NULL);
    return 0;
}
