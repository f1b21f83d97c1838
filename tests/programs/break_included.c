/* A function whose first statement comes from an #include (break_included.inc): a
   breakpoint on its first line lands, past the prologue, in the included file, and gdb
   names that file and its line. Its lines are far below the .inc's. */

int next(int i);

int main(void) {
    return next(1) == 2 ? 0 : 1;
}

/* (padding: the function's lines must not be the included statement's) */
/* ... */
/* ... */
/* ... */

int
next (int i) /* @bp:first */
{
#include "break_included.inc"
    return i;
}
