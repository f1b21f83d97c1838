/* Threads with thread-locals in shared libraries: lib_tls.c linked at start-up (static
   TLS) and the library named by argv[1] (lib_tls_dyn.c) loaded with dlopen (dynamic TLS). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

int lib_tls_set(int v);
static int (*dyn_set)(int);
static pthread_barrier_t ready, done;

static void *worker(void *arg) {
    int v = (int)(long)arg;
    lib_tls_set(v);
    dyn_set(v + 1000);
    pthread_barrier_wait(&ready);
    pthread_barrier_wait(&done);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: tls_main LIBRARY\n"); return 2; }
    void *library = dlopen(argv[1], RTLD_NOW);
    if (!library) { fprintf(stderr, "%s\n", dlerror()); return 3; }
    dyn_set = (int (*)(int))dlsym(library, "dyn_tls_set");
    pthread_t threads[3];
    pthread_barrier_init(&ready, NULL, 4);
    pthread_barrier_init(&done, NULL, 4);
    lib_tls_set(1);
    dyn_set(1001);
    for (long i = 0; i < 3; i++)
        pthread_create(&threads[i], NULL, worker, (void *)(i * 10 + 20));
    pthread_barrier_wait(&ready);
    puts("all set"); /* @bp:all_set */
    pthread_barrier_wait(&done);
    for (int i = 0; i < 3; i++)
        pthread_join(threads[i], NULL);
    dlclose(library);
    return 0;
}
