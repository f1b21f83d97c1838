/* Two worker threads parked in a one-instruction loop while main stops: every thread's
   frames are the same in each run, for the selection notifications' tests. */
#include <pthread.h>
#include <unistd.h>

static volatile int parked;

__attribute__((noinline)) static void worker_spin(void) {
    __asm__ volatile("1: jmp 1b"); /* @bp:spin */
}

static void *worker(void *arg) {
    __sync_fetch_and_add(&parked, 1);
    worker_spin(); /* @bp:spin_call */
    return arg;
}

__attribute__((noinline)) static void main_stop(void) {
    parked = parked; /* @bp:main_stop */
}

int main(void) {
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&threads[i], NULL, worker, NULL);
    while (parked < 2)
        usleep(1000);
    usleep(20000); /* both workers reach their loop */
    main_stop(); /* @bp:main_call */
    return 0;
}
