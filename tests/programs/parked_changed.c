/* A thread parks in its own function, wait_parked(), frame 0 of it: a raw futex wait in
   the function's body, so its registers are the same at every stop. Between the stops at
   stopped() main writes the memory its arguments are read from: the argument `count` in
   its stack slot (1 KiB below the saved registers an unwinding reads), the string `text`
   points to and the struct `where` points to; before the third, that struct alone. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129

struct spot {
    int count;
    int twice;
};

static volatile int gate;  /* the parked thread waits while it is 0 */
static volatile int parked_tid;
static int *volatile count_slot;  /* the parked frame's own `count` */
static char label[256] = "one";  /* longer than a string read (200 characters): the
                                     bytes read for `text` end in it */
static struct spot spot = {1, 2};
volatile int stops;

static long futex(volatile int *word, long op, long value) {
    long result;
    register long timeout __asm__("r10") = 0;
    __asm__ volatile("syscall" : "=a"(result) : "0"((long)SYS_futex), "D"(word), "S"(op), "d"(value), "r"(timeout)
                     : "rcx", "r11", "memory");
    return result;
}

__attribute__((noinline)) void wait_parked(int count, char *text, struct spot *where) {
    volatile char away[1024];  /* the arguments' slots lie below it, far from the saved registers */
    away[0] = 0;
    (void)away[0];
    count_slot = &count;
    __atomic_store_n(&parked_tid, (int)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
    while (!gate) {
        long result;
        register long timeout __asm__("r10") = 0;  /* the wait itself, in this frame */
        __asm__ volatile("syscall" : "=a"(result) : "0"((long)SYS_futex), "D"(&gate), "S"((long)FUTEX_WAIT_PRIVATE),
                         "d"(0L), "r"(timeout) : "rcx", "r11", "memory");
        (void)result;
    }
    (void)text, (void)where;
}

/* Whether thread `tid` sleeps (in its futex wait: nothing else of it sleeps). */
static int asleep(int tid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    FILE *stat = fopen(path, "r");
    if (stat == NULL)
        return 0;
    int found = fgets(line, sizeof line, stat) != NULL && strstr(line, ") S ") != NULL;
    fclose(stat);
    return found;
}

static void *parker(void *arg) {
    (void)arg;
    wait_parked(1, label, &spot);
    return NULL;
}

__attribute__((noinline)) void stopped(void) {
    stops++; /* @bp:stopped */
}

int main(void) {
    pthread_t thread;
    pthread_create(&thread, NULL, parker, NULL);
    while (!__atomic_load_n(&parked_tid, __ATOMIC_SEQ_CST) || !asleep(parked_tid))
        usleep(1000);
    stopped();
    *count_slot = 2;  /* the parked thread's argument, in its stack slot */
    strcpy(label, "two");
    spot.count = 20;
    stopped();
    spot.count = 30;  /* only what `where` points to: the arguments read the same */
    stopped();
    __atomic_store_n(&gate, 1, __ATOMIC_SEQ_CST);
    futex(&gate, FUTEX_WAKE_PRIVATE, 1);
    pthread_join(thread, NULL);
    return 0;
}
