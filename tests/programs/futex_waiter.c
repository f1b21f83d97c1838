/* A thread blocked in pthread_cond_wait, for certain: main stops in hit() only once the
   kernel shows the worker inside the futex system call (/proc/self/task/TID/syscall), so
   its frames are glibc's futex wait (an inlined __futex_abstimed_wait_common64). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static volatile pid_t worker_tid;
static int done;

static void *worker(void *arg) {
    pthread_mutex_lock(&lock);
    worker_tid = (pid_t)syscall(SYS_gettid);
    while (!done)
        pthread_cond_wait(&wake, &lock);
    pthread_mutex_unlock(&lock);
    return arg;
}

static int in_futex(pid_t tid) {
    char path[64];
    long number = -1;
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    FILE *file = fopen(path, "r");
    if (file == NULL)
        return 0;
    if (fscanf(file, "%ld", &number) != 1)
        number = -1;
    fclose(file);
    return number == SYS_futex;
}

void hit(void) {
    done = 0; /* @bp:hit */
}

int main(void) {
    pthread_t thread;
    pthread_create(&thread, NULL, worker, NULL);
    while (worker_tid == 0 || !in_futex(worker_tid))
        usleep(1000);
    hit();
    pthread_mutex_lock(&lock);
    done = 1;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);
    return 0;
}
