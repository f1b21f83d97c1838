/* Aggregates gcc -O2 keeps in registers: at the marker `v`'s location list has ended
   (no entry at the pc) and `w` is pieces, some of them gone. */
struct s { int a; int b; };
struct n { struct s in; int c; };

__attribute__((noinline)) int use(int x)
{
    __asm__ volatile("" ::: "memory");
    return x;
}

__attribute__((noinline)) int f(int n)
{
    struct s v = { use(n), use(n + 1) };
    int r = use(v.a * v.b);
    struct n w = { { use(r), use(r + 1) }, use(r + 2) };
    r += use(w.in.a * w.in.b * w.c);
    r += use(r * 3); /* @bp:dead */
    r += use(r);
    return r;
}

int main(void)
{
    return f(4) & 1;
}
