// C++ for clang's DWARF 5: a class in a namespace with methods, a constructor and a static
// member, a class template, a function template instantiated twice, references.
#include <cstdio>

namespace geo {

class Box {
public:
    Box(int w, int h) : width_(w), height_(h) { ++made; }
    int area() const {
        int a = width_ * height_; // @bp:area
        return a;
    }
    void grow(int by) {
        width_ += by; // @bp:grow
        height_ += by;
    }
    static int made;

private:
    int width_;
    int height_;
};

int Box::made = 0;

template <typename T>
struct Pair {
    T first;
    T second;
    T sum() const {
        T s = first + second; // @bp:pair_sum
        return s;
    }
};

template <typename T>
__attribute__((noinline)) T larger(T a, T b) {
    T best = a > b ? a : b; // @bp:larger
    return best;
}

__attribute__((noinline)) void bump(int &ref, int by) {
    ref += by; // @bp:bump
}

}  // namespace geo

int main() {
    geo::Box box(3, 4); // @bp:cpp_main
    int area = box.area();
    box.grow(2);
    geo::Pair<int> ints = {20, 22};
    geo::Pair<double> reals = {1.5, 2.25};
    int total = ints.sum();
    double rsum = reals.sum();
    int big = geo::larger(area, total);
    double rbig = geo::larger(rsum, 0.5);
    int &alias = big;
    geo::bump(alias, 5);
    std::printf("%d %d %g %d %g %d\n", area, total, rsum, big, rbig, geo::Box::made); // @bp:cpp_end
    return 0;
}
