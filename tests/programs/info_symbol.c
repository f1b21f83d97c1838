/* `info symbol ADDR`: a function and an offset in it, data in .data, .bss and .rodata,
   pointers into libc (gdb names the image once several are loaded), and addresses no
   symbol holds (the stack, zero). */
#include <stdio.h>
#include <stdlib.h>

int initialized = 7;
int zeroed;
static const char text[] = "abc";
int (*say)(const char *) = puts;
void *(*alloc)(size_t) = malloc;

int helper(int x)
{
    return x * 2 + initialized;
}

int main(void)
{
    int local = helper(3);
    zeroed = local;
    say(text); /* @bp:main */
    return alloc == 0;
}
