/* Built at -O2: inlined functions. `scale` and `clamp` are always inlined (several copies,
   one nested in the other); `mix` is an ordinary inline function that also has an
   out-of-line copy (its address is taken); `sink` is never inlined. */
#include <stdio.h>

volatile int sink_total;
volatile int start_value = 3; /* read at run time: nothing folds to constants */

__attribute__((noinline)) void sink(int v) {
    __asm__ volatile("" ::: "memory");
    sink_total += v; /* @bp:sink_body */
}

static inline __attribute__((always_inline)) int clamp(int v, int limit) {
    if (v > limit) { /* @bp:clamp_test */
        sink(limit);
        v = limit;
    }
    return v;
}

static inline __attribute__((always_inline)) int scale(int x, int factor) {
    int product = x * factor; /* @bp:scale_body */
    sink(product);            /* @bp:scale_sink */
    return clamp(product, 1000) + 1; /* @bp:scale_clamp */
}

static inline int mix(int a, int b) {
    sink(a ^ b); /* @bp:mix_body */
    return a + b;
}

int (*volatile mixer)(int, int) = mix;

__attribute__((noinline)) int twice(int n) {
    int doubled = scale(n, 2); /* @bp:twice_call */
    return doubled + mix(doubled, n); /* @bp:twice_mix */
}

int main(void) {
    int seed = start_value;
    int first = scale(seed, 5);      /* @bp:main_scale */
    int second = twice(seed + first); /* @bp:main_twice */
    int third = mixer(first, second); /* @bp:main_mixer */
    sink(clamp(third, 50));           /* @bp:main_clamp */
    printf("%d %d %d\n", first, second, third);
    return 0;
}
