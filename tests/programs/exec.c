/* Prints a line, then execs argv[1] with the remaining arguments. */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) void before_exec(void) {
    printf("before exec\n"); /* @bp:before_exec */
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: exec PROGRAM [ARGS]\n"); return 2; }
    before_exec();
    execv(argv[1], &argv[1]);
    perror("execv");
    return 99;
}
