/* Hit conditions, logpoints and expression watchpoints (test_engine_bp_features.py). */
#include <stdio.h>

struct node { int value; struct node *next; };
struct node second = {20, 0};
struct node first = {10, &second};

__attribute__((noinline)) int visit(int i) {
    return i * 2; /* @bp:visit */
}

int main(void) {
    int total = 0;
    for (int i = 0; i < 10; i++) {
        total += visit(i);
    }
    first.next->value = 99; /* @bp:write */
    first.next->value = 99;
    first.next->value = 100;
    printf("total %d value %d\n", total, second.value);
    return 0;
}
