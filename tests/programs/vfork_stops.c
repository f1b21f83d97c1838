/* Stops that come while the leader waits in vfork, which it leaves for no interrupt of the
 * debugger until its child is done (test_stopping_every_thread.py): a thread raises SIGUSR1
 * 100 ms into the vfork, and the child ends a second in. With the argument "kill" the child
 * kills the program instead; otherwise the thread raises SIGUSR1 again later, while the
 * leader waits in pthread_join for it, and the program exits 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int forking;

static void pause_ms(long ms) {
    struct timespec wait = {ms / 1000, ms % 1000 * 1000000};
    nanosleep(&wait, NULL);
}

static void on_usr1(int signo) {
    (void)signo;
}

static void *raiser(void *arg) {
    (void)arg;
    while (!forking)
        ;
    pause_ms(100);
    raise(SIGUSR1); /* the leader is in vfork */
    pause_ms(500);
    raise(SIGUSR1); /* the leader is in pthread_join */
    return NULL;
}

int main(int argc, char **argv) {
    int kill_it = argc > 1 && strcmp(argv[1], "kill") == 0;
    signal(SIGUSR1, on_usr1);
    pthread_t thread;
    pthread_create(&thread, NULL, raiser, NULL);
    pid_t parent = getpid();
    forking = 1;
    pid_t child = vfork();
    if (child == 0) {
        pause_ms(1000);
        if (kill_it)
            kill(parent, SIGKILL);
        _exit(0);
    }
    pthread_join(thread, NULL);
    waitpid(child, NULL, 0);
    return 0;
}
