/* The leader exits alone (pthread_exit) while another thread runs on, stops for SIGUSR1
 * and ends: the process exits 0 then (test_stopping_every_thread.py). */
#include <pthread.h>
#include <signal.h>
#include <time.h>

static void on_usr1(int signo) {
    (void)signo;
}

static void *raiser(void *arg) {
    (void)arg;
    struct timespec wait = {0, 300 * 1000 * 1000};
    nanosleep(&wait, NULL);
    raise(SIGUSR1); /* the leader is a zombie by now @bp:zombie */
    return NULL;
}

int main(void) {
    signal(SIGUSR1, on_usr1);
    pthread_t thread;
    pthread_create(&thread, NULL, raiser, NULL);
    pthread_exit(NULL);
}
