// C++ values as gdb prints them: vtable pointers and function pointers name demangled
// symbols, classes without data members of their own say <No data fields>; frames that
// save callee-saved registers (info frame).
#include <cstdio>

namespace ns {
int twice(int x) { return 2 * x; }
}  // namespace ns

namespace geo {
struct Shape {
    virtual ~Shape() {}
    virtual int area() const { return 0; }
    int id = 7;
};
struct Rect : Shape {
    int w = 3, h = 4;
    int area() const override { return w * h; }
};
struct Base {
    int b = 1;
};
struct Empty {};
struct Derived : Base {};
struct OnlyEmpty : Empty {};
struct Counted {
    static int count;
};
int Counted::count = 5;
}  // namespace geo

int measure(geo::Shape *shape, int scale) {
    int (*fp)(int) = ns::twice;
    geo::Empty empty;
    geo::Derived derived;
    geo::OnlyEmpty only_empty;
    geo::Counted counted;
    geo::Rect rect;
    int total = shape->area() * scale + fp(2);
    std::printf("%d %d %d\n", total, derived.b + rect.w, /* @bp:measure */
                (int)sizeof(empty) + (int)sizeof(only_empty) + (int)sizeof(counted));
    return total;
}

int middle(geo::Shape *shape, int scale) {
    return measure(shape, scale + 1) + 1;
}

int main() {
    geo::Rect rect;
    return middle(&rect, 2) > 0 ? 0 : 1;
}
