/* A unit with no variables at all: optimized, it has no location lists, so gdb does not
   trust its locations and skips the prologue by analysing the code
   (tests/integration/test_prologue_skip.py). */
extern volatile int sink;

__attribute__((noinline)) static void touch(void)
{
  sink++;
}

__attribute__((noinline)) int plain_body(void)
{
  touch();
  sink = 3;
  touch();
  return sink;
}
