/* A timer signal arriving while the loop runs through a jump patch's trampoline (a false
   condition on work's line): the handler's frames must return into work, as with a trap. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

volatile long sink;
volatile int ticks;

static void on_alarm(int sig) {
    ticks += sig > 0; /* @bp:handler */
}

__attribute__((noinline)) void work(long i) {
    sink += i; /* @bp:work */
}

int main(void) {
    signal(SIGALRM, on_alarm);
    struct itimerval every = {{0, 2000}, {0, 2000}};
    setitimer(ITIMER_REAL, &every, NULL);
    for (long i = 0; ticks < 40; i++)
        work(i);
    printf("ticks=%d\n", ticks);
    return 0;
}
