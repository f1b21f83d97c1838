// C++ classes, base classes, references and namespaces, compared with gdb.
#include <cstdio>

namespace geo {
struct Point { int x; int y; };
enum class Kind : unsigned char { Small = 1, Large = 2 };
}

class Base {
public:
    int base_value = 11;
    short tag = -2;
};

class Derived : public Base {
public:
    double ratio = 0.25;
    geo::Point where{5, 6};
    geo::Kind kind = geo::Kind::Large;
    int sum(int extra) const {
        int result = base_value + where.x + extra;
        return result; // @bp:method
    }
};

struct Multi : Base, geo::Point { bool flag = true; };

struct Shape {
    virtual ~Shape() {}
    virtual int area() const { return 0; }
    int id = 1;
    static int count;
};
int Shape::count = 3;

struct Square : Shape {
    int side = 4;
    int area() const override { return side * side; }
};

namespace {
int hidden_counter = 12;
}

int use_refs(int &ref, const geo::Point &cref, int &&rref, Derived *dp) {
    ref += 1;
    int local = ref + cref.x + rref + dp->base_value;
    return local; // @bp:refs
}

int main() {
    Derived d;
    Multi m;
    m.x = 1; m.y = 2;
    int value = 41;
    geo::Point pt{7, 8};
    Square sq;
    Shape &shape = sq;
    int *&pref = *new int *(&value);
    int total = use_refs(value, pt, 3, &d);
    total += shape.area() + hidden_counter + Shape::count + *pref; // @bp:main
    total += d.sum(4) + m.x;
    std::printf("%d\n", total);
    return 0;
}
