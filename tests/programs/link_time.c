/* A PIE's image before `run`: gdb shows it at its link-time addresses (values, memory,
   symbols, disassembly), and at its load addresses once the program runs. */
int counter = 3;
int *counter_pointer = &counter;
const char greeting[] = "hello";

int twice(int value)
{
    return value * 2;
}

int main(void)
{
    return twice(*counter_pointer) - 6; /* @bp:main */
}
