// Entry values of C++ parameters at -O2 (gdb's `print entry-values default`): a reference's
// entry value needs what it referred to at the call (DW_AT_call_data_value), else there is
// none (`all=...`, not `all=all@entry=...`); a parameter that an IPA clone lost is read
// through the caller's call site (DW_OP_GNU_parameter_ref).
#include <cstdio>
#include <vector>

volatile int sink;

struct Big { int a[8]; };

__attribute__((noinline)) static int sum(const std::vector<int> &all)
{
    int s = 0;
    for (int v : all) s += v * sink; /* @bp:sum */
    return s;
}

__attribute__((noinline)) static int first(const Big &b, int &n)
{
    sink = b.a[0];
    n += sink;
    return b.a[1] + n;
}

__attribute__((noinline)) int byref(const int &k, const long &m)
{
    sink = k;
    return k + 1 + (int)m;
}

__attribute__((noinline)) static int byptr(const Big *b)
{
    sink = b->a[0];
    return b->a[1];
}

__attribute__((noinline)) static int refs()
{
    int k = 7;
    long m = sink;
    return byref(k, m);
}

int main()
{
    std::vector<int> v{1, 2, 3};
    Big big{{1, 2, 3, 4, 5, 6, 7, 8}};
    int n = sink + 1;
    int t = sum(v) + first(big, n) + byptr(&big);
    t += refs();
    std::printf("%d\n", t);
    return 0;
}
