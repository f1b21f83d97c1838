// C++ types gdb names and prints its own way: pointers to data members and to member
// functions (virtual too), template arguments through gdb's name canonicaliser, static
// data members. Built with and without -fdebug-types-section by the tests.
#include <array>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace geo {
struct Plain {
    int x;
    int y;
    static int count;
    static const int limit = 7;
    int f(int a) const { return x + a; }
    virtual int g() { return y; }
    virtual ~Plain() {}
};
int Plain::count = 3;

class Counted {
  public:
    static int total;
    int id;

  private:
    static long secret;
    int hidden;

  public:
    Counted() : id(1), hidden(2) {}
};
int Counted::total = 5;
long Counted::secret = 9;

template <typename T, int N>
struct Box {
    T items[N];
};
template <bool B>
struct Flag {
    int on = B;
};
template <int *P>
struct Ptr {
    int get() const { return *P; }
};
template <typename A, typename B>
struct Two {
    A a;
    B b;
};
}  // namespace geo

int g_target = 11;

int use(geo::Plain &p) {
    int geo::Plain::*pm = &geo::Plain::y;
    int geo::Plain::*pm_null = nullptr;
    int (geo::Plain::*pf)(int) const = &geo::Plain::f;
    int (geo::Plain::*pv)() = &geo::Plain::g;
    int (geo::Plain::*pf_null)(int) const = nullptr;
    std::pair<const int, int> pr{1, 2};
    std::map<std::string, int> table{{"k", 1}};
    std::vector<const char *> words{"a"};
    std::function<int(int)> fn = [](int v) { return v + 1; };
    std::array<int, 3> arr{{1, 2, 3}};
    geo::Box<int, 4> box{{1, 2, 3, 4}};
    geo::Box<unsigned long, 1> ubox{{5}};
    geo::Flag<true> flag;
    geo::Ptr<&g_target> ptr;
    geo::Two<geo::Two<const char *, long unsigned int>, std::pair<short, const char>> nested{};
    geo::Counted counted;
    return p.*pm + (p.*pf)(1) + (p.*pv)() + (pm_null == nullptr) + (pf_null == nullptr) + pr.first + /* @bp:use */
           table["k"] + int(words.size()) + fn(1) + arr[0] + box.items[0] + int(ubox.items[0]) + flag.on +
           ptr.get() + int(nested.a.b) + counted.id;
}

int main() {
    geo::Plain p{};
    p.x = 1;
    p.y = 2;
    return use(p) == 0;
}
