/* AVX-512 registers written by the debugger at the breakpoint, then stored by the program:
   k1, zmm1 (its xmm, ymm and zmm parts), xmm17 and zmm20 (zmm16-31 share one place), all
   zeroed first so that nothing the loader left in them shows. */
#include <stdio.h>

unsigned long long k1_out;
int zmm1_out[16], xmm17_out[4];
long long zmm20_out[8];
volatile int sink;

int main(void)
{
    __asm__ volatile("vpxord %%zmm1, %%zmm1, %%zmm1\n\t"
                     "vpxord %%zmm17, %%zmm17, %%zmm17\n\t"
                     "vpxord %%zmm20, %%zmm20, %%zmm20\n\t"
                     "kxorq %%k1, %%k1, %%k1" ::: "xmm1", "xmm17", "xmm20", "k1");
    sink = 1; /* @bp:write */
    __asm__ volatile("kmovq %%k1, %0\n\t"
                     "vmovdqu32 %%zmm1, %1\n\t"
                     "vmovdqu32 %%xmm17, %2\n\t"
                     "vmovdqu64 %%zmm20, %3"
                     : "=m"(k1_out), "=m"(zmm1_out), "=m"(xmm17_out), "=m"(zmm20_out));
    sink = 2; /* @bp:stored */
    printf("%llx %d %d %d %lld\n", k1_out, zmm1_out[3], zmm1_out[12], xmm17_out[1], zmm20_out[7]);
    return 0;
}
