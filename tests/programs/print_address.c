/* Pointers printed under gdb's set print address off. */
#include <stdio.h>

unsigned char ctable[32] = "aaaaaaaaaaaaaaaabbbbcccc";
int numbers[3] = {1, 2, 3};
struct holder { int *p; const char *s; int (*f)(int); } holder;
static int twice(int x) { return 2 * x; }

int main(void) {
    int local = 5;
    int *lp = &local;
    char *null = 0;
    holder.p = &numbers[1];
    holder.s = "text";
    holder.f = twice;
    printf("%d %p %p\n", *lp, (void *)null, (void *)&holder); /* @bp:main */
    return twice(local);
}
