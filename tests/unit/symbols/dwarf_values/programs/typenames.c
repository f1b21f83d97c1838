/* Declarations whose type names are compared with gdb's `whatis`. */
long a; unsigned long b; short c; unsigned short d; long long e; unsigned long long f; unsigned g; long double h; signed char i; _Bool j; const char *k; char *const l = 0; const volatile int m; int (*n)(int, char *); int (*o)[3]; int *p[3]; void (*q)(void); void (*r)(); int s[2][3]; struct S { int x; } t; union U { int y; } u; enum E { A } v; typedef struct S S_t; S_t w; const S_t *x; char **y; const char *const *z; __int128 aa; float _Complex bb;
int main(void) { return (int)a; /* @bp:types */ }
