/* -O2: the inlined calls of bump (inside twice) start at main's breakpoint address. gdb
   shows a stop at `break main` in main and one at `break twice` in twice (the calls
   starting inside the named function are hidden, stopped_by_user_bp_inline_frame). */
volatile int g;

static inline void bump(int x)
{
  g += x; /* @bp:bump */
}

static inline void twice(int x)
{
  bump(x);
  bump(x + 1);
}

int main(void)
{
  twice(1);
  g *= 3;
  return g;
}
