// Source-level tests in C++: a class in a namespace, overloads, a template instantiated
// twice, a reference parameter and a reference local.
#include <cstdio>

namespace ns {

class Counter {
public:
    explicit Counter(int start) : value_(start) {}
    int add(int delta) {
        value_ += delta; // @bp:method
        return value_;
    }
    int value() const { return value_; }

private:
    int value_;
};

__attribute__((noinline)) int over(int x) {
    return x + 1; // @bp:over_int
}

__attribute__((noinline)) double over(double x) {
    return x * 2; // @bp:over_double
}

template <typename T>
__attribute__((noinline)) T twice(T v) {
    T doubled = v + v; // @bp:twice
    return doubled;
}

__attribute__((noinline)) void bump(int &ref) {
    ref += 10; // @bp:bump
}

}  // namespace ns

int main() {
    int target = 1;
    int &alias = target;
    ns::Counter counter(5);
    int total = counter.add(3); // @bp:cpp_call_add
    int a = ns::over(1);
    double b = ns::over(1.5);
    int t = ns::twice(21);
    double td = ns::twice(1.25);
    ns::bump(alias);
    std::printf("total=%d a=%d b=%.1f t=%d td=%.2f target=%d alias=%d value=%d\n", total, a, b, t,
                td, target, alias, counter.value()); // @bp:cpp_end
    return 0;
}
