// Globals whose values the gdb Python API shim reads from the executable file itself.
struct Base {
    int b;
};

struct Point : Base {
    int x;
    int y;
};

template <typename T, int N>
struct Box {
    T items[N];
};

typedef Point PointAlias;

struct Holder {
    typedef long value_type;
    int tag;
};

struct Derived : Holder {
    value_type z;
};

Point g_point = {{7}, 3, -4};
Box<short, 3> g_box = {{1, 2, 3}};
const char *g_text = "hello";
int g_numbers[4] = {10, 20, 30, 40};
PointAlias g_alias = {{1}, 2, 3};
Derived g_derived = {{1}, 5};

int main() {
    return g_point.x + g_box.items[0] + g_alias.x + g_numbers[0] + (g_text != nullptr) + g_derived.tag;
}
