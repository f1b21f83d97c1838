/* whatis of a qualified typedef (`whatis const myint` is int in gdb 13: the typedef's
   immediate target) and the address of a constant: at -O2 `c` has DW_AT_const_value and
   no place, so whatis &c, like gdb's LOC_CONST, is refused; so is an enumerator's. */
#include <stdio.h>

typedef int myint;
enum color { RED, GREEN };
enum color col = GREEN;
static const int c = 5;
myint m = 3;

int main(void)
{
    myint local = m * 2;
    printf("%d %d %d\n", c, col, local); /* @bp:main */
    return 0;
}
