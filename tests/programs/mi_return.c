/* -exec-return from a function built without a frame pointer: the caller keeps values in
   callee-saved registers across the call, which must survive the forced return (noipa:
   main may not know which registers work leaves alone). */
#include <stdio.h>

__attribute__((noipa)) int work(int x) {
    volatile int v = x * 3; /* @bp:work */
    return v + 1;
}

int main(int argc, char **argv) {
    long a = argc * 1000L + 7, b = argc * 13L + 5, c = (long)argv[0][0] * 3;
    long d = a ^ b, e = b * c, f = a + c;
    int r = work(argc);
    printf("r=%d %ld %ld %ld %ld %ld %ld\n", r, a, b, c, d, e, f);
    return 0;
}
