/* A recursion deeper than a debugger's usual frame limits (argv[1] levels, default 30000). */
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
    return descend(1, argc > 1 ? atoi(argv[1]) : 30000) == 0;
}
