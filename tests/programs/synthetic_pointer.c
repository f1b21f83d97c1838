/* At -O2 an array that only a pointer reads is folded away: the pointer's location is
   DW_OP_implicit_pointer to it (gdb's `<synthetic pointer>`). */
volatile int sink;

__attribute__((noinline)) static void consume(int n)
{
    sink = n;
}

int main(void)
{
    unsigned long junk[3] = {0x1000, 0x2000, 0x3000};
    unsigned long *p = junk;
    consume((int)(p[0] + p[1]));
    consume((int)p[2]); /* @bp:here */
    return 0;
}
