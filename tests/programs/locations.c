/* gdb's location syntax: explicit locations, FILE:FUNCTION, FUNCTION:LABEL, offsets. */
#include <stdio.h>

int twice(int x) {
  int y = x * 2;
again: /* @bp:label */
  y++;
  if (y < 0)
    goto again;
  return y;
}

int callme(int i) { return i + 1; /* @bp:callme */ }

int main(void) {
  int s = 0;
  for (int i = 0; i < 5; i++)
    s += callme(i); /* @bp:loop */
  s += twice(s);
  printf("%d\n", s);
  return 0;
}
