/* Cores of a known state, chosen by argv[1]: "stop" (one thread at a breakpoint), "libc"
 * (strlen(NULL) crashes inside libc), "threads" (three workers wait while main crashes on a
 * wild pointer), "pause" (workers and main wait until killed: cores are written of this live state). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NWORKERS 3

const char banner[] = "core-dump-banner"; /* read-only data: in a text segment */
long counter = 0x1122334455667788;
static pthread_barrier_t ready;
static double weights[4] = {0.5, 1.5, 2.5, 3.5};

__attribute__((noinline)) long fold(long seed, const char *text) {
    long local = seed * 3 + (long)strlen(text);
    counter += local; /* @bp:stop */
    return local;
}

__attribute__((noinline)) size_t measure(const char *text) {
    return strlen(text); /* @bp:libc */
}

static void *worker(void *arg) {
    long index = (long)arg;
    pthread_barrier_wait(&ready);
    for (;;)
        pause(); /* @bp:worker */
    return (void *)index;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "stop";
    volatile const char *text = argc > 2 ? argv[2] : NULL;
    weights[1] += (double)argc;
    if (!strcmp(mode, "stop")) {
        printf("fold=%ld\n", fold(7, banner));
        return 0;
    }
    if (!strcmp(mode, "libc"))
        return (int)measure((const char *)text);
    pthread_t threads[NWORKERS];
    pthread_barrier_init(&ready, NULL, NWORKERS + 1);
    for (long i = 0; i < NWORKERS; i++)
        pthread_create(&threads[i], NULL, worker, (void *)i);
    pthread_barrier_wait(&ready);
    if (!strcmp(mode, "threads")) /* a wild pointer: the fault has an address of its own */
        return (int)measure(text ? (const char *)text : (const char *)0x1234);
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    for (;;)
        pause(); /* @bp:main_pause */
}
