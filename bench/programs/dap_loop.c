/* A loop whose body line carries a DAP breakpoint: every iteration is one stop round trip
   (continue -> stopped -> threads, stackTrace, scopes, variables). The frame has locals of
   the usual kinds so that `variables` formats a realistic handful. */
#include <stdlib.h>

struct sample {
    int id;
    double weight;
    const char *label;
};

volatile long sink;

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    struct sample s = {1, 0.25, "sample"};
    int values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const char *text = "round trip";
    double total = 0;
    for (int i = 0; i < n; i++) {
        total += s.weight * values[i % 8]; /* @bp:loop */
        sink += i;
    }
    return text[0] == 'r' && total > 0 ? 0 : 1;
}
