/* A chain of entry values 3,000 frames long: at -O2 each call's argument n - 1 is
   DW_OP_entry_value(rsi) - 1, its caller's entry value, up to main's constant 3000. gdb
   follows 256 links and then says "Loop detected (257)" (an error, not optimized out). */
volatile int sink;

__attribute__((noinline, noipa)) int deep(int keep, int n)
{
    if (n == 0) {
        sink = keep; /* @bp:bottom */
        return sink;
    }
    int r = deep(keep, n - 1);
    sink = r;
    return r + 1;
}

int main(void)
{
    return deep(sink + 7, 3000) & 1;
}
