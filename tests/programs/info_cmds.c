/* gdb's information commands: info line/address/scope/frame, frame function, rbreak. */
/* A line without code: @bp:nocode */
#include <stdio.h>

int arr[4] = {1, 2, 3, 4};
static int counter;

int sq(int v)
{
    int r = v * v; /* @bp:sq */
    return r;
}

static int fold(int a, int b)
{
    static int calls;
    int total = a + b;
    calls++;
    counter += sq(total);
    return total + calls;
}

int main(int argc, char **argv) /* @bp:main_decl */
{
    int x = argc + 2; /* @bp:x */
    int y = fold(x, 3); /* @bp:main */
    printf("%d %d %d\n", x, y, arr[1]);
    return 0;
}
