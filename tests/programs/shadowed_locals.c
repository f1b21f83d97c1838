/* Locals hidden by inner ones of the same name, in nested blocks: gdb's `info locals`
   lists every block's, the innermost first, the hidden ones too. */
#include <stdio.h>

static int total(int n) {
    int ret = n;
    int step = 2;
    for (int i = 0; i < n; i++) {
        int ret = i * step;
        {
            int step = ret + 1;
            printf("%d %d\n", ret, step); /* @bp:inner */
        }
        n -= ret > 2;
    }
    return ret + step;
}

int main(void) {
    int ret = 1;
    ret += total(3);
    return ret == 0;
}
