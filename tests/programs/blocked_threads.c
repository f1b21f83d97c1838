/* Starts argv[1] threads (default 100) that block on a condition variable, then calls
   hit() argv[2] times (default 3): a stop in hit() has every thread alive, blocked alike. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t release = PTHREAD_COND_INITIALIZER;
static int started;
static int done;
static volatile int counter;

static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    started++;
    pthread_cond_signal(&started_cond);
    while (!done)
        pthread_cond_wait(&release, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* Once main has the lock again every worker is inside pthread_cond_wait, but maybe not yet
   in its futex wait (the lock released, the system call not made): a stop then showed a
   worker's frame 0 anywhere in glibc's wait, differently from run to run. So main waits
   until every other thread is in a futex wait (/proc/self/task/TID/syscall), 5 s at most. */
static int all_blocked(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL)
        return 1;
    int blocked = 1;
    struct dirent *task;
    while (blocked && (task = readdir(tasks)) != NULL) {
        if (task->d_name[0] == '.' || atoi(task->d_name) == getpid())
            continue;
        char path[300];
        long number = -1;
        unsigned long word = 0, op = 0;
        snprintf(path, sizeof path, "/proc/self/task/%s/syscall", task->d_name);
        FILE *file = fopen(path, "r");
        if (file != NULL) {
            if (fscanf(file, "%ld %lx %lx", &number, &word, &op) != 3)
                number = -1;  /* "running" */
            fclose(file);
        }
        /* a futex wait (FUTEX_WAIT or FUTEX_WAIT_BITSET), not the wake of a lock's release */
        blocked = number == SYS_futex && ((op & 0x7f) == 0 || (op & 0x7f) == 9);
    }
    closedir(tasks);
    return blocked;
}

static void wait_until_blocked(void) {
    struct timespec pause = {0, 1000000};
    for (int tries = 0; tries < 5000 && !all_blocked(); tries++)
        nanosleep(&pause, NULL);
}

void hit(int round) {
    counter += round; /* @bp:hit */
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 100;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    pthread_t *threads = calloc((size_t)count, sizeof *threads);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (int i = 0; i < count; i++)
        pthread_create(&threads[i], &attr, worker, NULL);
    pthread_mutex_lock(&lock);
    while (started < count)
        pthread_cond_wait(&started_cond, &lock);
    pthread_mutex_unlock(&lock);
    wait_until_blocked();
    for (int round = 0; round < rounds; round++)
        hit(round);
    pthread_mutex_lock(&lock);
    done = 1;
    pthread_cond_broadcast(&release);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < count; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    return 0;
}
