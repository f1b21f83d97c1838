/* `break main` must stop before the first call ran, as gdb does: g == 0 there
   (tests/integration/test_prologue_skip.py). main takes no arguments, so nothing but the
   frame setup comes before its first line. */
int g;
void f(void) { g++; }
int main(void)
{
  f(); /* @bp:first_call */
  f();
  return g;
}
