/* Variables of each kind for breakpoint conditions compiled per address
 * (test_compiled_conditions.py). Built with -DSWAP, probe's code is the same but its two
 * locals trade stack slots: a condition compiled for the other build would read the wrong one. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

struct counter {
    int count;
    char tag;
    long total;
};

enum mood { CALM, BUSY = 5, ANGRY = -2 };

int global_level;
static unsigned short file_static = 7;
volatile long sink;

static int depth_of(int depth, struct counter *c) {
    int local = depth * 10;
    c->count++;
    if (depth > 0)
        local += depth_of(depth - 1, c);
    return local; /* @bp:recurse */
}

static int probe(int n) {
#ifdef SWAP
    int b = n, a = n * 2;
#else
    int a = n * 2, b = n;
#endif
    return a + b; /* @bp:probe */
}

static void *worker(void *arg) {
    long id = (long)arg;
    for (int n = 0; n < 5; n++) {
        sink += id * n; /* @bp:worker */
    }
    return NULL;
}

int main(void) {
    struct counter s = {0, 'a', 0};
    struct counter *sp = &s;
    int (*fn)(int, struct counter *) = depth_of;
    double ratio = 0.0;
    enum mood mood = CALM;
    for (int i = 0; i < 10; i++) {
        unsigned int u = 4000000000u + i;
        char c = 'a' + i;
        short sh = -3 - i;
        long l = -5000000000L * i;
        unsigned char uc = 250 + i;
        int *p = i % 3 == 0 ? NULL : &global_level;
        struct counter *maybe = i % 3 == 0 ? NULL : sp;
        ratio = i / 4.0;
        s.count = i;
        s.total += i;
        global_level = i * 2;
        mood = i == 7 ? ANGRY : (i > 4 ? BUSY : CALM);
        sink += u + c + sh + l + uc + (p != NULL) + (maybe != NULL) + mood; /* @bp:body */
    }
    sink += (long)ratio + fn(3, &s); /* @bp:after */
    for (int n = 0; n < 10; n++)
        sink += probe(n);
    pthread_t threads[4];
    for (long id = 0; id < 4; id++)
        pthread_create(&threads[id], NULL, worker, (void *)id);
    for (int id = 0; id < 4; id++)
        pthread_join(threads[id], NULL);
    printf("count %d total %ld\n", s.count, s.total);
    return 0;
}
