/* Breakpoint conditions that call functions of the program, with a second thread running:
   the call holds the other thread (ticks does not move during held_delta's sleep), and a
   breakpoint inside a condition's call stops there as gdb does. */
#include <pthread.h>
#include <unistd.h>

volatile long ticks; /* the other thread's counter */
long last_delta = -1;
int reached;

__attribute__((noinline)) int held_delta(void) {
    long before = ticks;
    usleep(20000);
    last_delta = ticks - before; /* 0 when the other thread is held */
    return 1;
}

__attribute__((noinline)) int twice(int x) {
    return 2 * x; /* @bp:in_twice */
}

__attribute__((noinline)) void spot(int i) {
    reached = i; /* @bp:spot */
}

static void *ticker(void *arg) {
    (void)arg;
    for (;;) {
        ticks++;
        usleep(100);
    }
    return NULL;
}

int main(void) {
    pthread_t thread;
    pthread_create(&thread, NULL, ticker, NULL);
    while (ticks < 10)
        usleep(100);
    for (int i = 0; i < 10; i++)
        spot(i);
    return 0;
}
