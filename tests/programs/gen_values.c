/* Values the generated differential tester (conformance/generated.py) found printed
   unlike gdb: qualified arrays behind pointers, long double, errors, ptype bodies. */
#include <string.h>

typedef unsigned int counter_t;
typedef counter_t ticks_t;
enum level { LOW = -2, MID = 70000, HIGH };
struct parts {
    int id;
    unsigned flag : 3;
    long long wide : 40;
    union {
        int as_int;
        float as_float;
    };
    struct {
        short x, y;
    };
    char tail[];
};
struct parts g_parts = { 7, 5, -3, { 9 }, { 1, 2 } };
char (*g_window)[128];
struct parts *g_no_parts;
unsigned long g_wide[65536]; /* 512 KiB: more than gdb's max-value-size */
long double g_ld = -1.0e-5L;
double g_huge = 1.0e300;
char g_mixed[5] = "w\xd4\xa0\v"; /* a two-byte UTF-8 character, then a control one */
typedef char *text_t;
unsigned char *g_bytes = (unsigned char *)"ok";
text_t g_text = "ok";
char g_quotes[16] = { [0 ... 11] = 39 }; /* a run of ' (39), the character C escapes in 'c' */
enum wide { WIDE_BIG = 1099511627776, WIDE_SMALL = 3 } g_wide_enum; /* unsigned long */
union {
    long double ld;
    unsigned char bytes[16];
} g_bad_ld, g_nan_ld;
ticks_t g_ticks = 42;
enum level g_level = MID;
volatile long long g_sink;
char (*g_huge_view)[2147483648] = (char (*)[2147483648])&g_sink; /* never read whole */
char (*g_page_view)[65536] = (char (*)[65536])&g_sink; /* runs past the data pages */
static int s_gone; /* never used: at -O2 gcc describes it without a location */

__attribute__((noinline)) static long long consume(const volatile void *p, unsigned long n)
{
    const volatile unsigned char *b = p;
    long long s = 0;
    for (unsigned long i = 0; i < n; i++)
        s += b[i];
    return s;
}

__attribute__((noinline)) long long frame(long double scale)
{
    volatile char big[8192] = { 1, 2, 3 };
    g_sink += consume(&big, sizeof big); /* @bp:frame */
    return (long long)scale;
}

__attribute__((noinline)) long long constant_local(long long n)
{
    int fixed = 41; /* at -O2 gcc describes it by DW_AT_const_value */
    g_sink += n + fixed; /* @bp:constant */
    return n;
}

/* Called once with a constant: gcc -O2 makes a copy, scaled.constprop.0 */
__attribute__((noinline)) static long long scaled(long long value, int factor)
{
    g_sink += value * factor; /* @bp:scaled */
    return g_sink;
}

/* The pair is never read: at -O2 gcc leaves it without a location */
__attribute__((noinline)) static long long ignores(struct parts unused, long long n)
{
    g_sink += n; /* @bp:ignores */
    return n;
}

int main(void)
{
    memset(g_bad_ld.bytes, 0, sizeof g_bad_ld.bytes);
    g_bad_ld.bytes[0] = 0x12; /* an unnormal: mantissa without its integer bit */
    g_bad_ld.bytes[9] = 0x40;
    g_nan_ld.bytes[7] = 0xc0; /* the x87's default quiet NaN */
    g_nan_ld.bytes[0] = 0x5a;
    g_nan_ld.bytes[8] = 0xff;
    g_nan_ld.bytes[9] = 0xff;
    g_sink += consume(&g_parts, sizeof g_parts) + consume(&g_window, sizeof g_window);
    g_sink += consume(&g_no_parts, sizeof g_no_parts) + consume(g_wide, 16);
    g_sink += consume(&g_huge_view, sizeof g_huge_view) + consume(&g_page_view, 8);
    g_sink += constant_local(g_sink);
    g_sink += scaled(g_sink, 3);
    memset(&g_wide_enum, 0xff, sizeof g_wide_enum);
    g_sink += ignores(g_parts, g_sink) + g_quotes[0] + (long long)g_wide_enum;
    g_sink += frame(g_ld) + (long long)g_ticks + g_level + (g_huge > 0) + g_mixed[0] + g_bytes[0] + g_text[0];
    return 0;
}
