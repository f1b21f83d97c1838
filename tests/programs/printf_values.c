/* Values for gdb's printf and dprintf (tests/integration/test_dprintf.py): each printf
   conversion's kind of argument, and a function hit several times by a dprintf. */
#include <stdio.h>

const char *message = "hello";
char letters[8] = "abc";
double ratio = 3.25;
float half = 1.5f;
long big = -5000000000L;
unsigned char high = 200;
int negative = -7;
int *nowhere;
int total;

int accumulate(int step) {
    total += step; /* @bp:accumulate */
    return total;
}

int main(void) {
    for (int i = 1; i <= 3; i++) /* @bp:loop */
        accumulate(i * 10);
    printf("total=%d\n", total); /* @bp:done */
    return 0;
}
