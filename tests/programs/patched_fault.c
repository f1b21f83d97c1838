/* A breakpoint site whose first instruction faults on the third call (a null pointer):
   with a jump patch at -O2 that store is displaced, so the fault comes from the copy and
   must be shown at the program's own instruction, as with a trap and in gdb. */
#include <stddef.h>

int cells[3];
int stores;

__attribute__((noinline)) void store(int *p, int v) {
    *p = v; /* @bp:store */
    stores++;
}

int main(void) {
    for (int i = 0; i < 3; i++)
        store(i == 2 ? NULL : &cells[i], i);
    return 0;
}
