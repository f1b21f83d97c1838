/* The second unit of line_table (without the header: gdb lists the table of a header
   compiled into several units from whichever of them it read last). */
int plus_square(int a)
{
    return a * a + 1;
}
