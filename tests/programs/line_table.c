/* Code from two source files and a header, for -symbol-list-lines (line_table_part.c). */
#include <stdio.h>
#include "line_table.h"

int plus_square(int a);

int square_plus_one(int a)
{
    return square(a) + 1; /* at -O2 its code starts in the header */
}

int main(int argc, char **argv)
{
    int sum = 0;
    for (int i = 0; i < argc; i++)
        sum += square(i);
    printf("%d %s\n", sum, argv[0]);
    return plus_square(square_plus_one(sum)) & 1;
}
