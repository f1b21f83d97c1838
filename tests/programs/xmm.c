/* Passes a known double in xmm0 to take(). */
#include <stdio.h>

__attribute__((noinline)) void take(double d) {
    printf("took %.2f\n", d); /* @bp:take */
}

int main(void) {
    take(1.5);
    return 0;
}
