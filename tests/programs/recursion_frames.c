/* A recursion for finish, until and advance from an outer frame: every inner level passes
   the same return address and the same line first, so only the frame (gdb's frame id, its
   CFA) tells the level asked for from the others. */
#include <stdio.h>

__attribute__((noinline)) int fact(int n) {
    if (n <= 1) /* @bp:test */
        return 1;
    return n * fact(n - 1); /* @bp:recurse */
} /* @bp:end */

int main(void) {
    int r = fact(4); /* @bp:call */
    printf("fact(4)=%d\n", r);
    return 0;
}
