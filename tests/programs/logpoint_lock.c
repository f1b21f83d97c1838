/* Threads logging at one line many times, for a logpoint ring under scheduler-locking: one
 * thread held inside its record while another fills the ring alone. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 3
#define PASSES 200000

static volatile long total[THREADS];

static void *run(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < PASSES; i++)
        total[id] += i; /* @bp:log */
    return NULL; /* @bp:end */
}

int main(void)
{
    pthread_t started[THREADS];
    for (long k = 0; k < THREADS; k++)
        pthread_create(&started[k], NULL, run, (void *)k);
    for (int k = 0; k < THREADS; k++)
        pthread_join(started[k], NULL);
    printf("total %ld\n", total[0] + total[1] + total[2]); /* @bp:done */
    return 0;
}
