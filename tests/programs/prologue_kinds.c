/* Functions of every prologue shape, for `break FUNCTION` against gdb's prologue skip
   (tests/integration/test_prologue_skip.py). Built at -O0 and optimized; main's first
   call must not have run when `break main` stops (g == 0 there, as under gdb). */
#include <stdarg.h>
#include <string.h>

int g;
volatile int sink;

__attribute__((noinline)) void no_locals(void) /* @bp:no_locals_head */
{
  g++; /* @bp:no_locals_body */
}

__attribute__((noinline)) int many_locals(int a)
{ /* @bp:many_locals_brace */
  int b = a + 1, c = b * 2, d = c - 3, e = d ^ a;
  long f = (long)e * b;
  short h = (short)(f + c);
  char i = (char)(h + d);
  return (int)(f + h + i + e);
}

__attribute__((noinline)) int large_frame(int n)
{
  char buffer[8192];
  memset(buffer, n, sizeof buffer);
  sink = buffer[n & 4095];
  return buffer[100];
}

__attribute__((noinline)) int leaf(int x)
{
  return x * 3 + 1;
}

__attribute__((noinline)) double varargs(int count, ...) /* @bp:varargs_head */
{
  va_list args;
  double total = 0;
  va_start(args, count);
  for (int k = 0; k < count; k++)
    total += va_arg(args, double);
  va_end(args);
  return total;
}

__attribute__((noinline)) int one_line(int x) { return x + g; }

__attribute__((noinline)) long many_args(long a, long b, long c, long d, long e, long f,
                                         long h, long i)
{
  return a + b * c - d + e * f - h + i;
}

struct pair {
  long first, second, third;
};

__attribute__((noinline)) struct pair make_pair(long first)
{
  struct pair made = {first, first * 2, first * 3};
  return made;
}

__attribute__((noinline)) int with_vla(int n)
{
  int values[n];
  for (int k = 0; k < n; k++)
    values[k] = k * n;
  return values[n - 1];
}

__attribute__((noinline)) static int file_static(int x)
{
  int twice = x * 2;
  sink = twice;
  return twice + 1;
}

int plain_body(void); /* prologue_kinds_part.c: a unit without location lists */

int main(int argc, char **argv) /* @bp:main_head */
{
  no_locals(); /* @bp:first_call */
  no_locals();
  int total = many_locals(argc) + large_frame(argc) + leaf(argc) + one_line(argc);
  total += (int)varargs(2, 1.5, 2.5) + (int)many_args(1, 2, 3, 4, 5, 6, 7, 8);
  total += (int)make_pair(argc).third + with_vla(argc + 2) + file_static(argc);
  total += plain_body() + (argv[0] != 0);
  return total > 0 ? g - 2 : 1;
}
