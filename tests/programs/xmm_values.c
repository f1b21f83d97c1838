/* Float and double parameters and locals at -O2: gcc keeps them in xmm registers
   (DW_OP_reg17.. xmm0-15) and their entry values come from the caller's call sites. */
#include <stdio.h>

volatile double dsink;
volatile float fsink;
volatile int isink;

__attribute__((noinline)) double mix(int i, float f, double d, int j, double e, float g)
{
    double local = d * e + f;
    dsink = local; /* @bp:mix */
    fsink = g;
    isink = i + j;
    return local - g;
}

__attribute__((noinline)) double changed(double a, float b)
{
    a = a * 3.0 + dsink;
    dsink = a; /* @bp:changed */
    fsink = b;
    return a + 1.0;
}

__attribute__((noinline)) float spread(float f0, double d1, int n, float f2, double d3, float f4,
                                       double d5, float f6, double d7)
{
    float sum = f0 + f2 * f4 - f6;
    fsink = sum; /* @bp:spread */
    dsink = d1 * d3 + d5 / d7;
    return sum * n + (float)dsink;
}

__attribute__((noinline)) double outer(double x, double y)
{
    double r = mix(isink + 1, (float)x, y, 7, x * y, -0.75f); /* @bp:outer */
    return r + changed(x - y, (float)y);
}

int main(void)
{
    isink = 2;
    double total = outer(-2.25, 1.5);
    total += spread(0.5f, -1.25, isink, 3.0f, 4.5, -0.125f, 1e-5, 123456.789f, -8.0);
    printf("%.3f\n", total);
    return 0;
}
