/* A parameter overwritten at once at -O2 (gdb's mi2-amd64-entry-value validity case): its
   location list holds only gcc's empty entry-point record, so only NAME@entry is known. */
volatile int sink;

__attribute__((noinline, noclone)) static int data(void)
{
    return 10;
}

__attribute__((noinline, noclone)) static void clobber(int i, double j)
{
    sink = i + (int)j;
}

__attribute__((noinline, noclone)) static int validity(int lost, int born)
{
    lost = data();
    clobber(0, 0.0);
    return born; /* @bp:validity */
}

int main(void)
{
    return validity(5, data()) == 10 ? 0 : 1;
}
