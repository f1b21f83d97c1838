/* hbreak and thbreak, compared with gdb 13: more hardware breakpoints than x86's four
   debug registers refuse the resume, as gdb's. */
#include <stdio.h>

int one(int x) { return x + 1; }
int two(int x) { return x + 2; }
int three(int x) { return x + 3; }
int four(int x) { return x + 4; }
int five(int x) { return x + 5; }

int factorial(int n) {
    if (n > 1) /* @bp:factorial */
        return n * factorial(n - 1);
    return 1;
}

int main(void) {
    int sum = factorial(4); /* @bp:start */
    sum += one(sum) + two(sum) + three(sum) + four(sum) + five(sum);
    printf("%d\n", sum); /* @bp:print */
    return 0;
}
