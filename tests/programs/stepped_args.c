/* Arguments that change while their frame stays: each stepi in bump() shows them again
   (the remote backend keeps them across steps while what they were read from is the same).
   n and label are rewritten in the frame; *where and the text label points to are
   written through pointers; at -O2 n lives in registers, its location list changes. */
#include <stdio.h>

static char text[16] = "before";

__attribute__((noinline)) int bump(int n, char *label, int *where)
{
    n = n + 1;  /* @bp:bump */
    n = n * 3;
    *where = n;
    label[0] = 'B';
    label = label + 1;
    n = n + *where;
    __asm__ volatile("" : "+r"(n));
    return n + label[0];
}

int main(void)
{
    int slot = 0;
    int r = bump(4, text, &slot);
    r += bump(r, text + 2, &slot);
    printf("%d %d %s\n", r, slot, text);
    return 0;
}
