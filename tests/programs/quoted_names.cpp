/* Names a linespec or expression quotes whole: operators, qualified names, template instances. */
#include <cstdlib>
#include <new>

struct Widget {
    int v;
    static void *operator new(std::size_t n) { return std::malloc(n); }
    int operator+(int x) const { return v + x; }
};

namespace ns {
int twice(int x) { return 2 * x; }
}

template <typename T> T ident(T x) { return x; }

int main() {
    Widget *w = new Widget{3}; /* @bp:main */
    int r = (*w + 4) + ns::twice(2) + ident<int>(5);
    std::free(w);
    return r == 16 ? 0 : 1;
}
