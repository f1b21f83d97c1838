/* Real-client tests (Emacs gdb-mi, Vim termdebug): a loop calling a function, output, exit 0. */
#include <stdio.h>

int square(int n) {
    int result = n * n; /* @bp:square_body */
    return result; /* @bp:square_return */
}

int main(void) {
    int total = 0; /* @bp:main_first */
    for (int i = 1; i <= 3; i++) { /* @bp:loop_head */
        total += square(i); /* @bp:loop_body */
    }
    printf("client total=%d\n", total); /* @bp:after_loop */
    fflush(stdout);
    total = total * 2; /* @bp:end */
    return total == 28 ? 0 : 1;
}
