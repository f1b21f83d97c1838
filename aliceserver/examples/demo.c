/* The quickstart's example program: `python -m aliceserver demo` debugs it. */
#include <stdio.h>

__attribute__((noinline)) long fibonacci(int n) {
    long previous = 0, current = 1;
    for (int i = 0; i < n; i++) {
        long next = previous + current;
        previous = current;
        current = next;
    }
    return previous;
}

__attribute__((noinline)) int report(int n) {
    long value = fibonacci(n);
    printf("fibonacci(%d) = %ld\n", n, value);
    return (int)(value % 7);
}

int main(void) {
    return report(20);
}
