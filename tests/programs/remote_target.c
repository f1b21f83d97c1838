/* A small program for the remote (gdb RSP) backend's tests: a global to read, functions to
   break at, a watched variable, a loop to interrupt, and (with "threads") two more threads
   parked while main stops in remote_threads_ready, and with "repeat N" N more calls of
   remote_add that change nothing; "crash" writes through a null pointer). Exits with 5 + 7 = 12. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int remote_counter = 0;
char remote_greeting[] = "hello over the wire";
volatile int remote_spin = 1;
int *volatile remote_nowhere = 0;
static pthread_barrier_t remote_started;
static pthread_mutex_t remote_hold = PTHREAD_MUTEX_INITIALIZER;

int remote_add(int a, int b)
{
    return a + b; /* @bp:add */
}

void remote_touch(void)
{
    remote_counter += 7; /* @bp:touch */
}

static void *remote_worker(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&remote_started);
    pthread_mutex_lock(&remote_hold); /* parked until main lets go */
    pthread_mutex_unlock(&remote_hold);
    return NULL;
}

void remote_threads_ready(void)
{
}

static void remote_threads(void)
{
    pthread_t workers[2];
    pthread_mutex_lock(&remote_hold);
    pthread_barrier_init(&remote_started, NULL, 3);
    for (int i = 0; i < 2; i++)
        pthread_create(&workers[i], NULL, remote_worker, NULL);
    pthread_barrier_wait(&remote_started);
    remote_threads_ready();
    pthread_mutex_unlock(&remote_hold);
    for (int i = 0; i < 2; i++)
        pthread_join(workers[i], NULL);
}

int main(int argc, char **argv)
{
    int total = remote_add(2, 3);
    remote_touch();
    if (argc > 1 && strcmp(argv[1], "spin") == 0) {
        while (remote_spin) /* @bp:spin */
            usleep(1000);
    }
    if (argc > 1 && strcmp(argv[1], "threads") == 0)
        remote_threads();
    if (argc > 1 && strcmp(argv[1], "crash") == 0)
        *(volatile int *)remote_nowhere = 1; /* @bp:crash */
    if (argc > 2 && strcmp(argv[1], "repeat") == 0) {
        for (int i = atoi(argv[2]); i > 0; i--)
            remote_counter += remote_add(i, -i);
    }
    printf("total %d\n", total);
    return total + remote_counter;
}
