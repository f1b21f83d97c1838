/* C++ calls from the debugger (print obj.area(), p->name(), Cls::make(3)): member functions
   with `this` by address, static members, overloads picked by argument types, virtual
   methods through a base pointer, and classes returned by value (a non-trivially-copyable
   one in memory even when small, per the Itanium C++ ABI). */
#include <cstdio>

struct Shape {
    int id;
    explicit Shape(int i) : id(i) {}
    virtual ~Shape() {}
    virtual int area() const { return 0; }
    virtual const char *name() const { return "shape"; }
    int get_id() const { return id; }
};

struct Rect : Shape {
    int w, h;
    Rect(int i, int w_, int h_) : Shape(i), w(w_), h(h_) {}
    int area() const override { return w * h; }
    const char *name() const override { return "rect"; }
    int scaled(int k) const { return area() * k; }
    int scaled(double k) const { return (int)(area() * k) + 1000; }
    static Rect make(int side) { return Rect(0, side, side); }
};

struct Counter {  /* trivially copyable, 8 bytes: returned in rax */
    int n;
    int m;
    int &get() { return n; }
    Counter bumped(int by) const { Counter c = *this; c.n += by; return c; }
};

struct Tracked {  /* small but with a copy constructor: returned in memory */
    long v;
    Tracked(long x) : v(x) {}
    Tracked(const Tracked &o) : v(o.v) {}
    ~Tracked() {}
};

__attribute__((noinline)) int pick(int x) { return x + 1; }
__attribute__((noinline)) int pick(double x) { return (int)x + 100; }
__attribute__((noinline)) int pick(const char *s) { return s[0]; }
__attribute__((noinline)) Tracked track(long x) { return Tracked(x * 2); }
__attribute__((noinline)) long untrack(Tracked t) { return t.v; }

int main() {
    Rect r(7, 3, 4);
    Shape *base = &r;
    Counter c = {5, 6};
    Counter &ref = c;
    Tracked t(21);
    std::printf("%d %d %d %ld\n", base->area(), c.get(), pick(1), untrack(t)); /* @bp:main */
    Rect made = Rect::make(2);
    std::printf("%d %d %d %ld\n", made.scaled(2), made.scaled(0.5), pick(1.5) + pick("a"), track(1).v);
    std::printf("%d %d\n", ref.bumped(1).n, r.get_id());
    return 0;
}
