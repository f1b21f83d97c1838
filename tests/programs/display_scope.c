/* display's scope: locals of main (one in a loop's block, one in a plain block), a local
   and an argument of a callee, and a global. */
#include <stdio.h>

int counter = 0;

int square(int n) {
    int result = n * n; /* @bp:square */
    return result;
}

int main(void) {
    int total = 0;
    for (int i = 1; i <= 2; i++) {
        total += square(i); /* @bp:call */
    }
    {
        int inner = total * 2; /* @bp:inner */
        counter = inner;
    }
    printf("total %d counter %d\n", total, counter); /* @bp:end */
    return 0;
}
