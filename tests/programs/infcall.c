/* Functions called from the debugger (print f(x), call f(x)): each argument and return
   class of the SysV x86-64 ABI, a void function, a call that stops at a breakpoint or
   faults, a function that never returns, and a thread that runs on its own (held still
   during a call). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pair { int a; int b; };                   /* 8 bytes: rax */
struct mixed { long l; double d; };              /* 16 bytes: rax + xmm0 */
struct big { long v[4]; };                       /* 32 bytes: memory, hidden pointer */

volatile long ticks; /* the other thread's counter */
int calls_made;
const char *greeting = "hello";

__attribute__((noinline)) int add(int a, int b) { calls_made++; return a + b; }
__attribute__((noinline)) long sum8(long a, long b, long c, long d, long e, long f, long g, long h) {
    return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8; /* g, h on the stack */
}
__attribute__((noinline)) double scale(double x, float f) { return x * f; }
__attribute__((noinline)) float halve(float f) { return f / 2; }
__attribute__((noinline)) char first(const char *s) { return s[0]; }
__attribute__((noinline)) unsigned char wrap(unsigned char c) { return c + 1; }
__attribute__((noinline)) struct pair make_pair(int a, int b) { struct pair p = {a, b}; return p; }
__attribute__((noinline)) struct mixed make_mixed(long l, double d) { struct mixed m = {l, d}; return m; }
__attribute__((noinline)) struct big make_big(long x) { struct big b = {{x, x + 1, x + 2, x + 3}}; return b; }
__attribute__((noinline)) long pair_sum(struct pair p) { return p.a + p.b; }
__attribute__((noinline)) double mixed_sum(struct mixed m) { return m.l + m.d; }
__attribute__((noinline)) long big_sum(struct big b) { return b.v[0] + b.v[1] + b.v[2] + b.v[3]; }
__attribute__((noinline)) void bump(int by) { calls_made += by; }
__attribute__((noinline)) int *where(void) { return &calls_made; }
__attribute__((noinline)) int stops(int x) {
    return x + 1; /* @bp:in_stops */
}
__attribute__((noinline)) int crashes(int *p) { return *p; }
__attribute__((noinline)) long tick_count(void) { return ticks; }
__attribute__((noinline)) int twice(int x) { return 2 * x; }
volatile long spins;
__attribute__((noinline)) long forever(void) {
    for (;;)
        spins++; /* never returns: a call's time limit */
}

int (*twice_ptr)(int) = twice;

static void *ticker(void *arg) {
    (void)arg;
    for (;;) {
        ticks++;
        usleep(100);
    }
    return NULL;
}

int main(void) {
    pthread_t thread;
    pthread_create(&thread, NULL, ticker, NULL);
    while (ticks < 10)
        usleep(100);
    int x = 20;
    struct pair p = make_pair(3, 4);
    struct mixed m = make_mixed(5, 0.5);
    struct big b = make_big(10);
    const char *msg = "abcdef";
    printf("%d %ld %f %ld %s\n", add(x, 1), pair_sum(p), mixed_sum(m), big_sum(b), msg); /* @bp:main */
    return 0;
}
