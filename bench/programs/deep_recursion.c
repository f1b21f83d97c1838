/* Recurses argv[1] levels deep (default 100000) and stops at the bottom in bottom(). */
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
    int target = argc > 1 ? atoi(argv[1]) : 100000;
    for (int round = 0; round < 3; round++)
        descend(1, target);
    return 0;
}
