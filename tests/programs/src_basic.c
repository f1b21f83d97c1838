/* Source-level tests: a three-deep call chain, recursion, a loop, structs, arrays,
   pointers, strings, an enum, globals and statics, return values of several kinds, a
   function without line info, a libc callback (qsort) and a signal handler. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum color { RED, GREEN = 5, BLUE };

struct inner {
    int x;
    int y;
};

struct outer {
    int id;
    struct inner in;
    double ratio;
    const char *name;
};

struct pair {
    int a;
    int b;
};

int global_counter = 7;
static int static_counter = 3;
const char *global_text = "hello";
int numbers[20];

/* A function with neither line info nor DWARF: its own section, plain assembly. */
__asm__(".pushsection .text.nolines,\"ax\",@progbits\n"
        ".globl no_lines_add\n"
        ".type no_lines_add, @function\n"
        "no_lines_add:\n"
        "    leal (%rdi,%rsi), %eax\n"
        "    ret\n"
        ".size no_lines_add, .-no_lines_add\n"
        ".popsection\n");
int no_lines_add(int a, int b);

__attribute__((noinline)) int leaf(int x) {
    int doubled = x * 2; /* @bp:leaf */
    return doubled;
}

__attribute__((noinline)) int middle(int x) {
    int m = x + 1; /* @bp:middle_first */
    return leaf(m) + 1; /* @bp:middle_call */
}

__attribute__((noinline)) int top(int x) {
    int t = x + 1; /* @bp:top_first */
    return middle(t) + 1;
}

__attribute__((noinline)) int factorial(int n) {
    if (n <= 1) {
        return 1; /* @bp:fact_base */
    }
    int below = factorial(n - 1); /* @bp:fact_rec */
    return n * below; /* @bp:fact_mul */
}

__attribute__((noinline)) int *pointer_to(int *p) {
    return p + 1; /* @bp:pointer_to */
}

__attribute__((noinline)) double half(double v) {
    return v / 2; /* @bp:half */
}

__attribute__((noinline)) struct pair make_pair(int a, int b) {
    struct pair p = {a, b}; /* @bp:make_pair */
    return p;
}

__attribute__((noinline)) int loop_sum(int count) {
    int sum = 0; /* @bp:loop_first */
    for (int i = 0; i < count; i++) {
        sum += i; /* @bp:loop_body */
    }
    return sum; /* @bp:loop_done */
}

static int compare_ints(const void *a, const void *b) {
    int l = *(const int *)a;
    int r = *(const int *)b;
    return (l > r) - (l < r); /* @bp:compare */
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig) {
    got_signal = sig; /* @bp:handler */
}

__attribute__((noinline)) int show_values(int count, const char *label, struct outer *op) {
    struct outer copy = *op;
    enum color hue = BLUE;
    int values[20];
    for (int k = 0; k < 20; k++) {
        values[k] = 100 + k;
    }
    int *vp = &values[3];
    double scaled = op->ratio * count;
    char letter = label[0];
    int result = count + copy.in.y + values[2];
    return result; /* @bp:vars */
}

int main(void) {
    struct outer o = {42, {3, 4}, 0.5, "outer-name"};
    enum color c = GREEN;
    const char *text = "some text";
    int sorted[5] = {5, 3, 9, 1, 7};
    for (int k = 0; k < 20; k++) {
        numbers[k] = k * k;
    }
    int r = top(1); /* @bp:call_top */
    int f = factorial(5);
    int s = loop_sum(10);
    /* @bp:nocode */

    size_t len = strlen(text); /* @bp:call_strlen */
    int nl = no_lines_add(len, 1); /* @bp:call_nolines */
    int *pp = pointer_to(sorted);
    double h = half(5.0);
    struct pair pr = make_pair(3, 4);
    int shown = show_values(3, "label", &o); /* @bp:call_show */
    qsort(sorted, 5, sizeof sorted[0], compare_ints);
    signal(SIGUSR1, on_signal);
    raise(SIGUSR1);
    printf("r=%d f=%d s=%d len=%zu nl=%d pp=%d h=%.2f pr=%d,%d shown=%d c=%d\n", r, f, s, len,
           nl, *pp, h, pr.a, pr.b, shown, (int)c); /* @bp:report */
    printf("sorted=%d,%d,%d,%d,%d sig=%d global=%d static=%d text=%s\n", sorted[0], sorted[1],
           sorted[2], sorted[3], sorted[4], (int)got_signal, global_counter, static_counter,
           global_text);
    return 0;
}
