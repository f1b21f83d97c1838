/* Built with -mavx: passes {1.0, 2.0, 3.0, 4.0} in ymm0 to take256(). */
#include <immintrin.h>
#include <stdio.h>

__attribute__((noinline)) void take256(__m256d v) {
    double out[4];
    _mm256_storeu_pd(out, v); /* @bp:take256 */
    printf("took %.1f %.1f %.1f %.1f\n", out[0], out[1], out[2], out[3]);
}

int main(void) {
    take256(_mm256_set_pd(4.0, 3.0, 2.0, 1.0));
    return 0;
}
