/* Link-time optimization (-flto, with src_lto_part.c): gcc inlines functions of the other
   unit here, and their copies live in an <artificial> unit pointing into src_lto_part.c. */
#include <stdio.h>

int lto_helper(int x);
int lto_weigh(int x);

int main(int argc, char **argv) {
    (void)argv;
    int total = 0;
    for (int i = 0; i < argc + 3; i++) {
        total += lto_helper(i) + lto_weigh(i); /* @bp:lto_call */
    }
    printf("total=%d\n", total);
    return 0;
}
