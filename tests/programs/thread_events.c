/* One worker thread that hits a breakpoint, writes a watched global and gets a signal, one
   after another (then main stops once more), so what gdb prints around thread stops and
   thread starts and ends comes in one order. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

volatile int shared;

static void on_usr1(int sig) {
    (void)sig;
}

static void *worker(void *arg) {
    (void)arg;
    shared = 1; /* @bp:worker */
    raise(SIGUSR1);
    return NULL;
}

int main(void) {
    pthread_t tid;
    signal(SIGUSR1, on_usr1);
    pthread_create(&tid, NULL, worker, NULL);
    pthread_join(tid, NULL);
    printf("shared=%d\n", shared); /* @bp:joined */
    return 0;
}
