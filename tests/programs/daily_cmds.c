/* Console commands users type daily (thread apply, return, jump, list, save breakpoints,
   continue N, until/advance, breakpoint commands), compared with gdb 13. */
#include <pthread.h>
#include <stdio.h>

int counter;
static volatile int spinning;

int twice(int x) {
    int doubled = x * 2; /* @bp:twice */
    return doubled;
}

double half(double x) {
    return x / 2; /* @bp:half */
}

void touch(void) {
    counter++; /* @bp:touch */
}

static void *worker(void *arg) {
    (void)arg;
    spinning = 1;
    for (;;) /* @bp:worker: one jump to itself, so the thread always stops at this line's start */
        ;
    return NULL;
}

int main(void) {
    pthread_t thread;
    pthread_create(&thread, NULL, worker, NULL);
    while (!spinning)
        ;
    touch(); /* @bp:threads */
    int sum = 0;
    for (int i = 0; i < 5; i++) {
        sum += twice(i); /* @bp:loop */
    }
    double h = half(sum); /* @bp:call_half */
    touch();
    printf("sum=%d h=%g counter=%d\n", sum, h, counter); /* @bp:done */
    return 0;
}
