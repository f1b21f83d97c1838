/* gdb's `$` values and artificial arrays: `*arr@3`, the value history ($, $$2, $3),
   convenience variables ($i, $p), and the built-ins $_, $__, $_thread, $_exitcode. */
#include <stdio.h>

struct point { int x, y; };
int numbers[6] = {1, 2, 3, 4, 5, 6};
int *cursor = numbers;
int count = 4;
struct point corner = {7, 8};
char word[] = "hello";

int main(void)
{
    printf("%d %d %d %s\n", *cursor, count, corner.x, word); /* @bp:main */
    return 3;
}
