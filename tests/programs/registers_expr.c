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
    /* Set eflags to a known value (PF ZF): otherwise the last flag-setting instruction
       before the breakpoint is main's `sub $0x10,%rsp`, whose parity follows the stack
       address, which moves with the environment's size (gdb adds LINES and COLUMNS). */
    __asm__ volatile("cmp %0, %0" : : "r"(x) : "cc");
    return x * 2; /* @bp:callee */
}

int main(void)
{
    int v = callee(21);
    printf("%d\n", v); /* @bp:main */
    return 0;
}
