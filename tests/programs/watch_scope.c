/* Watchpoints on locals die with their frame (gdb: "left the block"); on globals they live on. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf escape;

volatile int global_total;

int compute(int n) {
    int acc = 0; /* @bp:compute */
    for (int i = 0; i < n; i++)
        acc += i + 1; /* @bp:acc */
    global_total += acc;
    return acc; /* @bp:return */
} /* @bp:compute-end */

int depth(int n) {
    int local = n * 10;
    if (n > 0)
        local += depth(n - 1); /* @bp:recurse */
    local += 1; /* @bp:depth-add */
    return local;
}

/* Leaves its frame by longjmp: the scope trap at its return address is never reached. */
int jumper(int n) {
    int slot = n; /* @bp:jumper */
    slot += 1;
    if (n > 0)
        longjmp(escape, 1);
    return slot;
}

/* Called where jumper was: its array covers jumper's old frame. */
int reuse(int n) {
    volatile int fill[16];
    for (int i = 0; i < 16; i++)
        fill[i] = n + i; /* @bp:reuse */
    return fill[3];
}

int main(void) {
    int r = compute(3); /* @bp:call */
    r += compute(4); /* @bp:call2 */
    r += depth(2); /* @bp:call-depth */
    if (setjmp(escape) == 0)
        r += jumper(5);
    r += reuse(7);
    printf("r=%d total=%d\n", r, global_total);
    return 0;
}
