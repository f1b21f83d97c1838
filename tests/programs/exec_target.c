/* The image exec.c switches to: prints its argument and exits 42. With "raise" it first
   sends itself SIGUSR1 (handled), so that a debugger stops inside the new image. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static void on_usr1(int sig) { (void)sig; }

__attribute__((noinline)) void target_func(void) {
    printf("in target_func\n"); /* @bp:target_func */
}

int main(int argc, char **argv) {
    printf("exec target running %s\n", argc > 1 ? argv[1] : "");
    fflush(stdout);
    if (argc > 1 && !strcmp(argv[1], "raise")) {
        signal(SIGUSR1, on_usr1);
        raise(SIGUSR1);
    }
    target_func();
    return 42;
}
