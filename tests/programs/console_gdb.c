/* The gdb-like console against gdb: output on both streams, a child's SIGCHLD, a trap
   the program raises itself, and stepping back out of a call into its caller. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int twice(int v) {
    int r = v * 2; /* @bp:twice */
    return r; /* @bp:twice_return */
}

int main(int argc, char **argv) {
    int got;
    char mode = argc > 1 ? argv[1][0] : 0;
    printf("to stdout\n");
    fflush(stdout);
    fprintf(stderr, "to stderr\n");
    if (mode == 'c') { /* a child that exits at once: its parent gets SIGCHLD */
        pid_t pid = fork();
        if (pid == 0)
            _exit(0);
        waitpid(pid, NULL, 0);
    }
    if (mode == 't')
        __asm__ volatile("int3"); /* @bp:trap */
    got = twice(argc); /* @bp:call */
    printf("got %d\n", got);
    return 0;
}
