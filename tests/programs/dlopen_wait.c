/* Loads the library named by its argument with dlopen, says "loaded", then waits (at most
 * 120 s) to be attached to: tests/support/dlopen_wait.py. */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
  if (argc < 2 || !dlopen(argv[1], RTLD_NOW)) return 3;
  puts("loaded");
  fflush(stdout);
  for (int i = 0; i < 1200; i++) usleep(100000);
  return 0;
}
