/* A loop for dynamic printf: each pass's values logged, one thread or several. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long total;

static void work(long id, int passes) {
    for (int i = 0; i < passes; i++) {
        long square = (long)i * i - id; /* @bp:square */
        total += square; /* @bp:log */
    }
}

static void *run(void *arg) {
    work((long)arg, 2500);
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 0;
    if (threads == 0) {
        work(-1, 10000);
    } else {
        pthread_t started[8];
        for (long k = 0; k < threads && k < 8; k++)
            pthread_create(&started[k], NULL, run, (void *)k);
        for (int k = 0; k < threads && k < 8; k++)
            pthread_join(started[k], NULL);
    }
    printf("total %ld\n", total); /* @bp:done */
    return 0;
}
