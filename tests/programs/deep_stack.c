/* A recursion deeper than a debugger's usual frame limits (argv[1] levels, default 30000),
   argv[2] times (default 1): bench/scale.py stops at the bottom twice. */
#include <stdlib.h>

static volatile int sink;

void bottom(int depth) {
    sink = depth; /* @bp:bottom */
}

int descend(int depth, int target) {
    if (depth >= target) {
        bottom(depth);
        return depth;
    }
    return descend(depth + 1, target) + 0 * sink;
}

int main(int argc, char **argv) {
    int target = argc > 1 ? atoi(argv[1]) : 30000;
    int rounds = argc > 2 ? atoi(argv[2]) : 1;
    for (int round = 0; round < rounds; round++)
        descend(1, target);
    return 0;
}
