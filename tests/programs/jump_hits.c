/* `jump` to a line with a breakpoint stops there at once, as gdb's: the jump's new pc is
   not stepped over (gdb's proceed to an address); a plain continue from it is. */
static int square(int x) {
    return x * x;
}

int main(void) {
    int i = 99; /* @bp:start */
    i++;
    i = square(i); /* @bp:call */
    i--;           /* @bp:after */
    return i > 0 ? 0 : 1;
}
