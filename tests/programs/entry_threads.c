/* Threads parked at one pc whose arguments are entry values with a different value in
   each thread: `id` is DW_OP_entry_value(rdi) once touch() clobbered it, known from the
   caller's call value: middle's is DW_OP_entry_value(rdi) again, worker's a register of
   its own (each thread's value). Built at -O2. */
#include <pthread.h>

#define THREADS 4

static volatile int go;
static volatile int started;
static volatile int seen[THREADS * 10 + 2];
volatile int sink;

__attribute__((noinline)) void touch(int x) { sink = x; }

__attribute__((noinline)) void spin(int id, int kind)
{
    touch(kind * 3);
    __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
    while (!go) /* @bp:spin */
        ;
}

/* Passes `id` on untouched: its call value for spin is DW_OP_entry_value(rdi) itself. */
__attribute__((noinline)) void middle(int id, int kind)
{
    spin(id, kind);
    sink++;
}

static void *worker(void *arg)
{
    int id = (int)(long)arg * 10 + 1;
    middle(id, 2);
    seen[id]++;
    return 0;
}

__attribute__((noinline)) void all_parked(void) { sink++; /* @bp:parked */ }

int main(void)
{
    pthread_t threads[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&threads[i], 0, worker, (void *)i);
    while (started < THREADS)
        ;
    all_parked();
    all_parked();
    go = 1;
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], 0);
    return seen[1] - 1;
}
