/* Loops for gdb's `until` without argument: a `next` that does not go back in loops. */
#include <stdio.h>

static int twice(int x) {
    return 2 * x;
}

static int sum_to(int n) {
    int sum = 0; /* @bp:sum_first */
    for (int i = 0; i < n; i++) { /* @bp:for */
        sum += twice(i); /* @bp:for_body */
    }
    int k = n; /* @bp:after_for */
    while (k > 0) { /* @bp:while */
        sum -= k;
        k--; /* @bp:while_dec */
    }
    return sum; /* @bp:sum_done */
}

int main(void) {
    int total = 0;
    for (int round = 0; round < 3; round++) { /* @bp:main_for */
        total += sum_to(4 + round); /* @bp:main_body */
    }
    printf("%d\n", total); /* @bp:main_print */
    return 0;
}
