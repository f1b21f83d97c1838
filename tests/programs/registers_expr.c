/* Registers in expressions: x87, SSE and general registers hold known values at the
   breakpoints (a long double product leaves st0, float work leaves xmm0). */
#include <stdio.h>

volatile long double ld_in = 2.5L;
volatile float f_in = 3.5f;
volatile double d_in = -1.25;
volatile long double ld_out;
volatile float f_out;
volatile double d_out;

__attribute__((noinline)) int callee(int x)
{
    long double l = ld_in * x;
    ld_out = l;
    f_out = f_in * (float)x;
    d_out = d_in + x;
    return x * 2; /* @bp:callee */
}

int main(void)
{
    int v = callee(21);
    printf("%d\n", v); /* @bp:main */
    return 0;
}
