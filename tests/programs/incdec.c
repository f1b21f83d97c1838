/* x++, ++x, x--, x += 2 written by print, as gdb does: ints, a pointer into an array
   (steps of its element), a double, a bitfield, an array element with an index that
   itself steps (evaluated once). */
#include <stdio.h>

int numbers[4] = {10, 20, 30, 40};
int *cursor = numbers;
double ratio = 1.5;
unsigned char small = 255;
struct flags { unsigned lo : 3; unsigned hi : 5; } bits = {6, 17};
int at = 1;

int main(void)
{
    int local = 7;
    printf("%d %d %f %d %d\n", local, *cursor, ratio, small, bits.lo); /* @bp:main */
    return 0;
}
