/* Conditional breakpoints that jump patches judge in the program (test_patched_breakpoints.py):
 * a loop whose condition dereferences a pointer that goes bad once, four threads crossing one
 * line, and a fork whose child crosses a patched line where the condition holds for it. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

struct item {
    int value;
};

volatile long sink;
int in_child;

static void *spin(void *arg) {
    long id = (long)arg;
    for (int n = 0; n < 2000; n++) {
        sink += id + n; /* @bp:spin */
    }
    return NULL;
}

__attribute__((noinline)) static void visit(int round) {
    sink += round * 3; /* @bp:visit */
}

int main(void) {
    struct item good = {7};
    for (int i = 0; i < 1000; i++) {
        struct item *it = i == 600 ? NULL : &good;
        sink += i + (it != NULL); /* @bp:loop */
    }
    pthread_t threads[4];
    for (long id = 0; id < 4; id++)
        pthread_create(&threads[id], NULL, spin, (void *)id);
    for (int id = 0; id < 4; id++)
        pthread_join(threads[id], NULL);
    for (int round = 0; round < 3; round++)
        visit(round);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        in_child = 1;
        for (int round = 0; round < 3; round++)
            visit(round);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child %s\n", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "exited normally" : "crashed");
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 3;
}
