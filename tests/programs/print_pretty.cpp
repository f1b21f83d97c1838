// Values laid out by gdb's `set print pretty on`: structs, base classes, arrays of structs,
// and library values through their printers (a map's pairs, a unique_ptr's child); classes
// with bases inside others (`members of T:` names each) and bases named with template arguments.
#include <map>
#include <memory>
#include <string>
#include <vector>
#include <tuple>
struct Point { int x; int y; };
struct Base { int b; };
struct Derived : Base { int d; Point p; int arr[3]; const char *s; };
struct Empty {};
struct OnlyBase : Base {};
struct WithUnion { int k; union { int i; float f; }; };
struct Outer { int a; OnlyBase ob; };
template <typename T, int N> struct Holder { T held[N]; };
template <typename A, typename B> struct Pair : Holder<A, 2> { B second; };
struct Nest { Derived inner; Pair<int, char> pair; Derived two[2]; OnlyBase only; int tail; };
int square(int n) { return n * n; }
int main() {
    Point pts[2] = {{1, 2}, {3, 4}};
    Derived der{};
    der.b = 1; der.d = 2; der.p = {5, 6}; der.s = "a = {b, c}";
    Empty e;
    int (*fp)(int) = square;
    std::vector<Point> vp{{1, 2}, {3, 4}};
    std::map<int, Point> mp{{1, {7, 8}}};
    std::tuple<int, int> tup{1, 2};
    std::unique_ptr<Point> up = std::make_unique<Point>(Point{9, 10});
    std::vector<int> zeros(30);
    OnlyBase ob{};
    WithUnion wu{};
    Outer outer{};
    Nest nest{};
    nest.inner.d = 3; nest.pair.held[1] = 4; nest.two[1].p.y = 5;
    Pair<long, short> lone{};
    return square(pts[0].x) + der.d + (int)(long)&e + fp(1) + ob.b + wu.k + outer.a + nest.tail + lone.second; /* @bp:here */
}
