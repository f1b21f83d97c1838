// C++ casts along class hierarchies (gdb's value_cast_structs, value_dynamic_cast) and
// info vtbl: single, multiple and virtual inheritance, with and without virtual functions.
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
    virtual int rank() const { return 1; }
    int tag = 9;
};
// Named lives 16 bytes into a Label.
struct Label : Shape, Named {
    int size = 5;
    const char *name() const override { return "label"; }
};
// Shape is a virtual base: where it lives is read from the vtable.
struct Solid : virtual Shape {
    int depth = 2;
    virtual int volume() const { return depth; }
};
// Solid 16 bytes in, its virtual Shape after the Cube's own members.
struct Cube : Named, Solid {
    int edge = 6;
    int volume() const override { return edge * edge * edge; }
};
// Two Shapes: a cast to Shape is ambiguous.
struct Twice : Rect, Label {
    int twice = 8;
};
}  // namespace geo

// No virtual functions: no dynamic type, only static base offsets.
struct Left {
    int left = 1;
};
struct Right {
    int right = 2;
};
struct Both : Left, Right {
    int both = 3;
};

int inspect(geo::Shape *s, geo::Named *named, geo::Shape &r, geo::Shape *cube, geo::Named *tag,
            geo::Twice *twice, Right *right, Both &both) {
    int sum = s->area() + named->tag + r.id + cube->id + tag->tag + twice->twice + right->right + both.both;
    std::printf("%d\n", sum); /* @bp:inspect */
    return sum;
}

int main() {
    geo::Rect rect;
    geo::Label label;
    geo::Cube cube;
    geo::Twice twice;
    Both both;
    return inspect(&rect, &label, label, &cube, &cube, &twice, &both, both) > 0 ? 0 : 1;
}
