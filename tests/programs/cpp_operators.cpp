// A class's own operators, as gdb calls them in the program: members (`[]`, unary `*`,
// `->`, `-`, `!`, `()`, `+=`, `==`) and free functions (`+`, `<`).
#include <string>

struct Table {
    int vals[4] = {10, 20, 30, 40};
    int operator[](int i) const { return vals[i]; }
    int operator[](const char *key) const { return key[0] == 'b' ? 2 : 1; }
    int operator*() const { return vals[0]; }
    bool operator==(const Table &other) const { return vals[0] == other.vals[0]; }
    int operator+(int n) const { return vals[0] + n; }
};

struct Wrap {
    Table table;
    Table *operator->() { return &table; }
};

struct Vec {
    int x, y;
    Vec operator-() const { return {-x, -y}; }
    bool operator!() const { return x == 0 && y == 0; }
    Vec &operator+=(int n) { x += n; y += n; return *this; }
    int operator()(int a, int b) const { return x * a + y * b; }
};

Vec operator+(const Vec &a, const Vec &b) { return {a.x + b.x, a.y + b.y}; }
bool operator<(const Vec &a, const Vec &b) { return a.x < b.x; }
int operator*(int k, const Vec &v) { return k * v.x; }

namespace ns {
int boom(int *where) { return *where; }  // a call that faults: gdb names it with its parameters
}

int main() {
    Table t;
    Wrap w;
    Vec a{1, 2}, b{3, 4};
    std::string s = "hi";
    Vec c = a + b;
    bool less = a < b;
    Vec n = -a;
    bool zero = !a;
    int k = 2 * a;
    a += 0;
    int called = a(1, 1);
    int sum = t[1] + t["b"] + *t + (t == t) + (t + 1) + w->vals[0];
    return sum + c.x + less + n.x + zero + k + called + static_cast<int>(s.size());  // @bp:main
}
