// `finish` at -O2 in C++: member functions defined out of their class (the concrete DIE's
// type is on the declaration), whose first line is an inlined call the stop hides;
// returning an int, a small struct in registers, and a class in memory (sret).
#include <cstdio>
#include <string>
#include <vector>

volatile int sink;

struct Point { int x, y; };
struct Named { std::string text; int size; };

namespace geo {
struct Shape {
    std::vector<int> all;
    std::string name;
    __attribute__((noinline)) int total() const;
    __attribute__((noinline)) Point corner(int k) const;
    __attribute__((noinline)) Named named(int n) const;
};

int Shape::total() const
{
    int s = 0;
    for (int v : all) s += v;
    sink = s;
    return s + (int)name.size();
}

Point Shape::corner(int k) const
{
    sink = k;
    return Point{k, (int)all.size()};
}

Named Shape::named(int n) const
{
    sink = n;
    return Named{name + std::string(n, '!'), n};
}
}

__attribute__((noinline)) static double ratio(int a, int b)
{
    sink = a;
    return (double)a / b;
}

// An ABI-tagged function (it returns a std::string): gdb names its frames in full,
// `label[abi:cxx11](int)`, its name parser refusing the tag
__attribute__((noinline)) std::string label(int n)
{
    sink = n;
    return std::string(n, 'x');
}

int main()
{
    geo::Shape sh{{1, 2, 3}, "tri"};
    int t = sh.total();
    Point p = sh.corner(2);
    Named n = sh.named(2);
    double r = ratio(t, 4);
    std::string l = label(3);
    std::printf("%d %d %s %f %s\n", t, p.x, n.text.c_str(), r, l.c_str());
    return 0;
}
