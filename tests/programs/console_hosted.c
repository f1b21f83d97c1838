/* The gdb console hosted by DAP and the agent: every front end runs the same commands. */
#include <stdio.h>

struct point {
    int x;
    int y;
};

static int arr[5] = {10, 20, 30, 40, 50};

static int scale(struct point *p, int factor) {
    int total = p->x * factor; /* @bp:scale */
    total += p->y * factor;
    return total;
}

int main(void) {
    struct point s = {3, 4};
    int x = 7;
    int n = 2;
    int result = scale(&s, n); /* @bp:main */
    x += result;
    printf("%d %d\n", x, arr[1]); /* @bp:after */
    return 0;
}
