/* Frame 0's arguments in its stack slots (-O0), written by the debugger at the stop: the
   bytes its unwinding read at the stop hold the old values (keptarguments.py serves reads
   from them only while nothing was written). */
volatile int sink;

void take(int n, long m)
{
    sink = n + (int)m; /* @bp:take */
}

int main(void)
{
    take(7, 9);
    return sink == 16 ? 0 : 1;
}
