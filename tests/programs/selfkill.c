/* Kills itself with SIGKILL. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    printf("about to die\n");
    fflush(stdout);
    kill(getpid(), SIGKILL); /* @bp:kill */
    printf("still alive\n");
    return 0;
}
