/* Raises SIGUSR1 at itself; the handler records that it ran. */
#include <signal.h>
#include <stdio.h>

static volatile sig_atomic_t handled;

static void handler(int sig) { handled = sig; }

int main(void) {
    signal(SIGUSR1, handler);
    raise(SIGUSR1); /* @bp:raise */
    printf("handled=%d\n", (int)handled);
    return 0;
}
