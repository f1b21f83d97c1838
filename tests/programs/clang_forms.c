/* A program for clang's DWARF 5 (strx, addrx, rnglistx, loclistx forms, .debug_addr,
   .debug_rnglists and .debug_loclists): globals, a struct, arrays, a loop with a block,
   calls returning an int and a struct, and functions in their own sections (a unit with
   several code ranges). Built at -O0 and -O2: the optimized build keeps values in
   registers with location lists. */
#include <stdio.h>

struct point {
    int x;
    int y;
    const char *label;
};

int g_count = 3;
static int s_hidden = 11;
const char *g_text = "clang-forms";
int g_table[6] = {4, 8, 15, 16, 23, 42};
struct point g_origin = {1, 2, "origin"};
volatile int g_sink;

__attribute__((noinline)) int weigh(const int *values, int n, int factor) {
    int total = 0; /* @bp:weigh_first */
    for (int i = 0; i < n; i++) {
        int scaled = values[i] * factor;
        total += scaled; /* @bp:weigh_loop */
    }
    g_sink = total;
    return total; /* @bp:weigh_return */
}

__attribute__((noinline)) struct point shifted(struct point p, int dx) {
    struct point out = p; /* @bp:shifted_first */
    out.x += dx;
    out.y -= dx;
    g_sink = out.x;
    return out;
}

__attribute__((noinline, section(".text.clang_far"))) int far_away(int seed) {
    int mixed = seed * 7 + s_hidden; /* @bp:far_first */
    g_sink = mixed;
    return mixed ^ 5;
}

int main(void) {
    int local[4] = {1, 2, 3, 4}; /* @bp:main_first */
    struct point here = {5, 6, "here"};
    int weight = weigh(local, 4, g_count); /* @bp:main_call */
    struct point moved = shifted(here, weight); /* @bp:main_shift */
    int far = far_away(weight); /* @bp:main_far */
    printf("%d %d %d %d %s %d\n", weight, moved.x, moved.y, far, g_text, g_table[5]);
    return 0; /* @bp:main_end */
}
