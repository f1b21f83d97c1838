/* Built in a "build" directory whose sources are then moved: debugged through
   `set substitute-path`, `directory`, DAP's sourceMap and the agent's source_map. */
#include <stdio.h>

static int twice(int x)
{
  return x * 2; /* @bp:twice */
}

int main(void)
{
  int total = 0;
  for (int i = 0; i < 3; i++)
    total += twice(i); /* @bp:loop */
  printf("%d\n", total);
  return 0;
}
