/* Decimal floating point (_Decimal32/64/128, BID on x86-64) for print and printf's %H, %D, %DD. */
#include <stdio.h>

_Decimal32 d32 = 1.2df;
_Decimal64 d64 = -1234567890123456.dd;
_Decimal128 d128 = 1.234567890123456789012345678901234dl;
_Decimal32 big32 = 1.2E96df;

int main(void) {
    printf("%d\n", (int) (d32 + d64 + d128 + big32)); /* @bp:main */
    return 0;
}
