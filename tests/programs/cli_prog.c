/* The CLI tests' program: a loop of calls that print, and with the argument "slow", more
   output over a few tenths of a second after the loop (while no command runs). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int add(int a, int b) {
    int sum = a + b; /* @bp:add */
    return sum;
}

int main(int argc, char **argv) {
    int total = 0;
    for (int i = 0; i < 3; i++) {
        total = add(total, i); /* @bp:loop */
        printf("step %d total %d\n", i, total);
        fflush(stdout);
    }
    if (argc > 1 && strcmp(argv[1], "slow") == 0) {
        for (int j = 0; j < 5; j++) {
            printf("slow %d\n", j);
            fflush(stdout);
            usleep(100000);
        }
    }
    printf("done %d\n", total); /* @bp:done */
    return 0;
}
