/* DAP front-end tests (tests/clients, conformance/dap_diff): a short call chain, a loop and
   locals of the common kinds (int, long, double, char, string, pointer, struct, array). It
   prints one line, raises no signal and exits 0, so clients can run it to the end. */
#include <stdio.h>
#include <stdlib.h>

struct point {
    int x;
    int y;
    const char *name;
};

static int calls = 0;

__attribute__((noinline)) int square(int v) {
    int r = v * v; /* @bp:square */
    calls++;
    return r; /* @bp:square_ret */
}

__attribute__((noinline)) int sum_points(struct point *pts, int n) {
    int total = 0; /* @bp:sum_first */
    for (int i = 0; i < n; i++) {
        total += square(pts[i].x) + pts[i].y; /* @bp:sum_loop */
    }
    return total; /* @bp:sum_done */
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 2; /* @bp:main_first */
    struct point pts[3] = {{1, 2, "a"}, {3, 4, "b"}, {5, 6, "c"}};
    double ratio = 0.5;
    char letter = 'q';
    const char *text = "hello";
    int *ptr = &pts[1].x;
    long grand = 0;
    for (int k = 0; k < rounds; k++) {
        grand += sum_points(pts, 3); /* @bp:main_loop */
    }
    printf("grand=%ld ratio=%.1f letter=%c text=%s ptr=%d calls=%d\n", grand, ratio, letter, text,
           *ptr, calls); /* @bp:report */
    return 0;
}
