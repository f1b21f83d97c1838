/* Built at -O2: values in no memory (optimized out, computed, in a register) asked about as
   gdb's whatis, ptype, sizeof and & see them, and a varargs function whose named parameter
   has its address taken (gcc gives it two DIEs). */
#include <stdarg.h>
#include <stdlib.h>

struct rec { int id; char tag[8]; struct rec *next; unsigned low : 3, high : 5; };
struct rec g_rec = { 7, "seven", 0, 5, 9 }, g_other = { 8, "eight", 0, 6, 3 };
struct rec *g_null;
struct flex { int n; char data[]; };  /* gdb's "dynamic" type: whatis *f reads f */
int g_x = 4;
volatile long g_sink;

__attribute__((noinline)) int consume(int v) {
    __asm__ volatile("" ::: "memory");
    return v * 2 + 1;
}

__attribute__((noinline)) int use_bytes(const volatile void *p, unsigned long n) {
    const volatile unsigned char *b = p;
    int s = 0;
    for (unsigned long i = 0; i < n; i++)
        s += b[i];
    return s;
}

__attribute__((noinline)) int walk(struct rec *p) {
    int total = consume(p->id);
    total += consume(total); /* @bp:walk_after */
    return total;
}

__attribute__((noinline)) int flex_len(struct flex *f) {
    int total = consume(f->n);
    total += consume(total); /* @bp:flex_after */
    return total;
}

__attribute__((noinline)) static long long sum(int count, ...) {
    static int sum_calls = 3;
    va_list ap;
    long long total = 0;
    va_start(ap, count);
    for (int i = 0; i < count; i++)
        total += va_arg(ap, int);
    va_end(ap);
    sum_calls++; /* @bp:sum_body */
    g_sink += use_bytes(&count, sizeof count);
    return total + sum_calls;
}

int main(int argc, char **argv) {
    struct rec *r = malloc(sizeof *r);
    *r = argc > 1 ? g_rec : g_other;
    r = argc > 3 ? &g_rec : r;
    int a = walk(r);
    struct flex *f = malloc(sizeof *f + 4);
    f->n = argc;
    a += flex_len(argc > 3 ? 0 : f);
    long long b = sum(3, argc, a, 5);
    g_sink += a + b;
    return 0;
}
