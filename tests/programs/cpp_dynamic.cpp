// C++ dynamic types (gdb's `set print object`): base pointers, references and a pointer in
// a struct that point at derived objects, with single, multiple and virtual inheritance.
#include <cstdio>

namespace geo {
struct Shape {
    virtual ~Shape() {}
    virtual int area() const { return 0; }
    int id = 7;
};
struct Rect : Shape {
    int width = 3, height = 4;
    int area() const override { return width * height; }
};
struct Named {
    virtual const char *name() const { return "named"; }
    int tag = 9;
};
// Multiple inheritance: a Named * to a Label points 16 bytes into it (offset-to-top -16).
struct Label : Shape, Named {
    int size = 5;
    const char *name() const override { return "label"; }
};
// A virtual base: where the Shape lives is read from the vtable.
struct Solid : virtual Shape {
    int depth = 2;
};
struct Cube : Solid {
    int edge = 6;
};
template <typename T>
struct Box : Shape {
    T content;
    explicit Box(T c) : content(c) {}
};
}  // namespace geo

struct Holder {
    geo::Shape *shape;
    int count;
};

int total(geo::Shape *s, geo::Shape &r, geo::Named *named, Holder holder, geo::Shape **all) {
    geo::Shape *cube = all[2];
    geo::Shape *plain = all[3];
    int sum = s->area() + r.area() + named->tag + holder.count + cube->id + plain->id;
    std::printf("%d\n", sum); /* @bp:total */
    return sum;
}

int main() {
    geo::Rect rect;
    geo::Label label;
    geo::Cube cube;
    geo::Shape shape;
    geo::Box<int> box(42);
    geo::Shape *all[4] = {&rect, &label, &cube, &shape};
    Holder holder = {&box, 4};
    long garbage[2] = {0x1234, 0};
    geo::Shape *bad = reinterpret_cast<geo::Shape *>(garbage);
    std::printf("%d\n", bad != nullptr);
    return total(&rect, label, &label, holder, all) > 0 ? 0 : 1;
}
