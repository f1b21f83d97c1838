/* Functions called from the debugger on aarch64 (print f(x)), one per AAPCS64 argument
   and result class: integers in x0-x7 and past them on the stack, floating-point values
   and homogeneous aggregates in v0-v7, small composites in x registers, large ones passed
   by address and returned through x8, a string copied into the program (malloc). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pair { int a; int b; };           /* 8 bytes: x0 */
struct wide { long l; long m; };         /* 16 bytes: x0, x1 */
struct point { double x, y, z; };        /* an HFA: v0-v2 */
struct big { long v[4]; };               /* 32 bytes: by address, result through x8 */

int calls_made;

__attribute__((noinline)) int add(int a, int b) { calls_made++; return a + b; }
__attribute__((noinline)) long sum10(long a, long b, long c, long d, long e, long f, long g, long h, long i,
                                     long j) {
    return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8 + i * 9 + j * 10; /* i, j on the stack */
}
__attribute__((noinline)) double scale(double x, float f) { return x * f; }
__attribute__((noinline)) float halve(float f) { return f / 2; }
__attribute__((noinline)) int negate(short s) { return -s; }
__attribute__((noinline)) size_t length(const char *s) { return strlen(s); }
__attribute__((noinline)) struct pair make_pair(int a, int b) { struct pair p = {a, b}; return p; }
__attribute__((noinline)) struct wide make_wide(long l, long m) { struct wide w = {l, m}; return w; }
__attribute__((noinline)) struct point make_point(double x) { struct point p = {x, x * 2, x * 3}; return p; }
__attribute__((noinline)) struct big make_big(long x) { struct big b = {{x, x + 1, x + 2, x + 3}}; return b; }
__attribute__((noinline)) long pair_sum(struct pair p) { return p.a + p.b; }
__attribute__((noinline)) long wide_sum(struct wide w) { return w.l + w.m; }
__attribute__((noinline)) double point_sum(struct point p) { return p.x + p.y + p.z; }
__attribute__((noinline)) long big_sum(struct big b) { return b.v[0] + b.v[1] + b.v[2] + b.v[3]; }
__attribute__((noinline)) int stops(int x) {
    return x + 1; /* @bp:in_stops */
}

int main(void) {
    struct pair p = {3, 4};
    struct wide w = {5, 6};
    struct point pt = {1.5, 2.5, 3.5};
    struct big b = {{1, 2, 3, 4}};
    const char *msg = "hello";
    printf("%d %ld %ld %f %ld %s\n", add(1, 2), pair_sum(p), wide_sum(w), point_sum(pt), big_sum(b), msg); /* @bp:main */
    return stops(calls_made) > 100;
}
