/* Eight threads each calling getppid() in a loop: when one is stopped at the call, the
   others are (almost always) at it too, their stops queued behind the one reported. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NTHREADS 8
#define CALLS 2000

static pthread_barrier_t started;

static void *spin(void *arg) {
    pthread_barrier_wait(&started); /* all spin together */
    for (int i = 0; i < CALLS; i++)
        syscall(SYS_getppid);
    return arg;
}

int main(void) {
    pthread_t tids[NTHREADS];
    pthread_barrier_init(&started, NULL, NTHREADS);
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&tids[i], NULL, spin, NULL);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(tids[i], NULL);
    puts("spun");
    return 0;
}
