// C++ var objects as gdb's MI shows them: members grouped by access (public, private,
// protected), base classes, hidden vtable pointers, references, and frame names.
#include <cstdio>
#include <utility>

namespace geo {
class Base {
  public:
    virtual ~Base() {}
    int id = 1;

  protected:
    int guarded = 2;

  private:
    int secret = 3;
};
struct Plain {
    int x = 4;
    double y = 5.5;
};
class Derived : public Base, protected Plain {
  public:
    int visible = 6;
    struct Inner {
        long depth = 7;
    } inner;
    int total(int extra) const { return visible + extra; /* @bp:total */ }

  private:
    char hidden = 'h';
    int (*callback)(int) = nullptr;
    union {
        int word;
        char bytes[4];
    };
};
class Quiet {  // only private members (a class's default)
  public:
    int sum() const { return a + b; }

  private:
    int a = 8;
    int b = 9;
};
template <typename T>
struct Pair {
    T first;
    const T second;
};
struct Refs {
    int &ref;
    int &&rref;
    const char *names[2];
};
}  // namespace geo

namespace {
struct Hidden {
    int tag = 10;
};
}  // namespace

extern "C" int plain_c(int value, const char *text) { return value + text[0]; }

int area(geo::Derived &d) { return d.total(1); }

int main() {
    geo::Derived derived;
    geo::Derived *pd = &derived;
    geo::Quiet quiet;
    geo::Plain plain;
    geo::Pair<int> pair{11, 12};
    std::pair<const int, int> stdpair{13, 14};
    Hidden hidden;
    int target = 15;
    geo::Refs refs{target, static_cast<int &&>(target), {"a", "b"}};
    std::printf("%d\n", area(derived) + quiet.sum() + plain_c(hidden.tag, refs.names[0])); /* @bp:main */
    return pair.first + stdpair.first + pd->visible + int(plain.y) > 0 ? 0 : 1;
}
