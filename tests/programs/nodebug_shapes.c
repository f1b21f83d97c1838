/* Built without -g (and stripped, by the test): globals and functions known only by their
   ELF symbols, as gdb's minimal symbols (<data variable, no debug info>). */
#include <stdio.h>

struct shape { int kind; double w, h; };
struct shape g_shape = { 1, 2.0, 3.0 };
int g_count = 3;
static int s_hidden = 4;
char g_name[16] = "tri";
volatile int sink;

__attribute__((noinline)) double area(const struct shape *s)
{
    sink = s->kind + s_hidden;
    return s->w * s->h;
}

__attribute__((noinline)) int twice(int x)
{
    sink = x;
    return x * 2 + sink;
}

int main(void)
{
    double a = area(&g_shape);
    int t = twice(g_count);
    printf("%f %d\n", a, t);
    return 0;
}
