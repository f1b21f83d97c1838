/* Disassembly forms: rip-relative operands (a global, a string), several source lines. */
#include <stdio.h>

int counter = 3;
static const char *greeting = "hello";

static int twice(int value)
{
  int doubled = value * 2;
  return doubled;
}

int main(void)
{
  counter += twice(counter); /* @bp:disasm */
  printf("%s %d\n", greeting, counter);
  puts("done");
  return 0;
}
