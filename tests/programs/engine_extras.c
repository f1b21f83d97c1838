/* Scenarios for tests/integration/test_engine_extras.py, chosen by argv[1]. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

volatile long a_count, b_count;
volatile int quit;

__attribute__((noinline)) void tick_a(void) { a_count++; }
__attribute__((noinline)) void tick_b(void) { b_count++; }
__attribute__((noinline)) int after_child(int status) { return status; }
__attribute__((noinline)) int in_child(int x) { return x + 1; }
__attribute__((noinline)) void show(double d) { printf("show %.2f\n", d); }

static void *loop_a(void *arg) { while (!quit) tick_a(); return arg; }
static void *loop_b(void *arg) { while (!quit) tick_b(); return arg; }

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "pair")) {                 /* two busy threads, ends after 20 s */
        pthread_t a, b;
        pthread_create(&a, 0, loop_a, 0);
        pthread_create(&b, 0, loop_b, 0);
        sleep(20);
        quit = 1;
        pthread_join(a, 0);
        pthread_join(b, 0);
        return 0;
    }
    if (!strcmp(mode, "read")) {                 /* blocks in read(2) until input arrives */
        char buffer[64];
        ssize_t n = read(0, buffer, sizeof buffer);
        printf("read %zd\n", n);
        return 0;
    }
    if (!strcmp(mode, "xmm")) {                  /* passes 1.5 in xmm0 */
        show(1.5);
        return 0;
    }
    if (!strcmp(mode, "tty")) {                  /* says whether its stdio is a terminal */
        printf("isatty %d %d %d\n", isatty(0), isatty(1), isatty(2));
        return 0;
    }
    if (!strcmp(mode, "vfork")) {                /* vfork + exec, then the parent goes on */
        pid_t child = vfork();
        if (child == 0) {
            execl("/bin/true", "true", (char *)0);
            _exit(127);
        }
        int status = 0;
        waitpid(child, &status, 0);
        printf("vfork child %d\n", WEXITSTATUS(status));
        return after_child(WEXITSTATUS(status)) + 5;
    }
    if (!strcmp(mode, "fork")) {                 /* fork; the child returns 40 + in_child(1) */
        pid_t child = fork();
        if (child == 0) return 40 + in_child(1);
        int status = 0;
        waitpid(child, &status, 0);
        printf("child said %d\n", WEXITSTATUS(status));
        return 0;
    }
    return 2;
}
