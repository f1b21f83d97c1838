/* Raises the signal numbered argv[1] with its default action. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int sig = argc > 1 ? atoi(argv[1]) : SIGTERM;
    signal(sig, SIG_DFL);
    raise(sig);
    printf("survived %d\n", sig);
    return 0;
}
