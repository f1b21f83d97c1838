/* Calls that reach their function through tail calls (gcc -O2: middle jumps to impl):
   gdb reads impl's entry values through middle's call site, a virtual frame; from
   choose, which reaches impl both directly and through relay, it cannot tell which. */
#include <stdio.h>

volatile int sink;

__attribute__((noipa)) int impl(int a, int b, int mode) {
    sink = a + b;
    sink = mode; /* @bp:impl */
    return sink * 2;
}

__attribute__((noipa)) int middle(int a, int b) {
    return impl(a + 1, b, 3);
}

__attribute__((noipa)) int relay(int a, int b) {
    return impl(a - 1, b, 7);
}

__attribute__((noipa)) int choose(int a, int b) {
    if (a > 10)
        return relay(a, b);
    return impl(a + 2, b, 4);
}

int main(void) {
    int r = middle(4, 5);
    r += choose(20, 6);
    printf("%d\n", r);
    return 0;
}
