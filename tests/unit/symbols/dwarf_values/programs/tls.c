/* Thread-locals of the executable read from two threads (each has its own fs_base). */
#include <pthread.h>
#include <stdio.h>

__thread int tls_counter = 5;
__thread char tls_name[8] = "main";
static __thread long tls_static = -1;

static void *worker(void *arg) {
    tls_counter = 100 + (int)(long)arg;
    tls_name[0] = 'w';
    tls_static = 77;
    printf("%d %s %ld\n", tls_counter, tls_name, tls_static); /* @bp:worker */
    return NULL;
}

int main(void) {
    pthread_t thread;
    tls_counter = 6;
    pthread_create(&thread, NULL, worker, (void *)1L);
    pthread_join(thread, NULL);
    printf("%d %s %ld\n", tls_counter, tls_name, tls_static); /* @bp:main */
    return 0;
}
