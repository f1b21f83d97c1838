/* Seven threads park in wait_twin(), frame 0 of each (a raw futex wait in its body): their
   registers differ only where their stacks lie. Threads 0-2 are alike (count 7, called
   from call_a); thread 3 has count 8; thread 4 comes from call_b; threads 5 and 6 (from
   call_own) pass a pointer to a local of their own stack. Before the second stop at
   stopped(), main writes thread 1's `count` in its stack slot: its registers stay the
   same. Each passes `tag`, text outside the stacks (the debugger writes it at a stop). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define THREADS 7
#define FUTEX_WAIT_PRIVATE 128

static volatile int gate;      /* the parked threads wait while it is 0 */
static volatile int parked;    /* how many have parked */
static volatile int tids[THREADS];
static long *volatile count_slots[THREADS];
static long shared_cell = 42;
static char tag_text[8] = "alike";
volatile int stops;

__attribute__((noinline)) void wait_twin(long count, long *cell, long kind, const char *tag) {
    int me = __atomic_load_n(&parked, __ATOMIC_SEQ_CST);
    count_slots[me] = &count;
    tids[me] = (int)syscall(SYS_gettid);
    __atomic_add_fetch(&parked, 1, __ATOMIC_SEQ_CST);
    while (!gate) {
        long result;
        register long timeout __asm__("r10") = 0;
        __asm__ volatile("syscall" : "=a"(result) : "0"((long)SYS_futex), "D"(&gate), "S"((long)FUTEX_WAIT_PRIVATE),
                         "d"(0L), "r"(timeout) : "rcx", "r11", "memory");
        (void)result;
    }
    (void)cell, (void)kind, (void)tag;
}

__attribute__((noinline)) void call_a(long count) {
    wait_twin(count, &shared_cell, 1, tag_text);
}

/* Its frame is larger than call_a's: threads 5 and 6 are alike among themselves alone. */
__attribute__((noinline)) void call_own(long count) {
    volatile long pad[4] = {0};
    long local = count * 100;
    wait_twin(count, &local, 1, tag_text);
    (void)pad[0];
}

__attribute__((noinline)) void call_b(long count) {
    wait_twin(count, &shared_cell, 1, tag_text);
}

static void *run(void *arg) {
    long n = (long)arg;
    if (n == 4)
        call_b(7);
    else if (n >= 5)
        call_own(7);
    else
        call_a(n == 3 ? 8 : 7);
    return NULL;
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

__attribute__((noinline)) void stopped(void) {
    stops++; /* @bp:stopped */
}

int main(void) {
    pthread_t threads[THREADS];
    for (long n = 0; n < THREADS; n++) {  /* one at a time: thread n is the nth listed */
        pthread_create(&threads[n], NULL, run, (void *)n);
        while (__atomic_load_n(&parked, __ATOMIC_SEQ_CST) <= n || !asleep(tids[n]))
            usleep(1000);
    }
    stopped();
    *count_slots[1] = 9;  /* thread 1's argument, in its stack slot */
    stopped();
    gate = 1;
    return 0;
}
